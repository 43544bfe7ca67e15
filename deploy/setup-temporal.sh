#!/bin/sh
# One-shot (temporal-setup service): wait for the Temporal server, create the namespace if it is missing,
# and register the search attribute the worker uses. Idempotent: "already exists" is success.
set -eu

: "${TEMPORAL_ADDRESS:=temporal:7233}"
: "${NAMESPACE:=default}"
export TEMPORAL_ADDRESS  # the temporal CLI reads it
ATTEMPTS=60

# retry DESCRIPTION COMMAND...: run COMMAND until it succeeds, every 2 s, at most ATTEMPTS times.
retry() {
  what=$1; shift
  i=1
  until "$@"; do
    if [ "$i" -ge "$ATTEMPTS" ]; then echo "setup: gave up: $what"; exit 1; fi
    echo "setup: waiting: $what ($i/$ATTEMPTS)"
    i=$((i + 1))
    sleep 2
  done
}

create_namespace() {
  temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1 && return 0
  out=$(temporal operator namespace create --namespace "$NAMESPACE" 2>&1) && return 0
  echo "$out" | grep -qi 'already exists' && return 0
  echo "$out"; return 1
}

# register_search_attribute NAME TYPE: register one search attribute the worker uses, unless it exists.
register_search_attribute() {
  temporal operator search-attribute list --namespace "$NAMESPACE" | grep -qw "$1" && return 0
  out=$(temporal operator search-attribute create --namespace "$NAMESPACE" --name "$1" --type "$2" 2>&1) && return 0
  echo "$out" | grep -qi 'already exists' && return 0
  echo "$out"; return 1
}

retry "Temporal at $TEMPORAL_ADDRESS" sh -c 'temporal operator cluster health | grep -q SERVING'
retry "namespace $NAMESPACE" create_namespace
# The search attributes of durable-mcp (src/workflows/messages.ts, SEARCH_ATTRIBUTES). Nothing sensitive: never encoded.
# DurableMcpAwaitingInput: set while a tool call waits for a human's answer.
retry "search attribute DurableMcpAwaitingInput" register_search_attribute DurableMcpAwaitingInput Bool
# DurableMcpServers, DurableMcpKinds: the servers and kinds of the pending requests; DurableMcpNextExpiry: the earliest expiry.
retry "search attribute DurableMcpServers" register_search_attribute DurableMcpServers KeywordList
retry "search attribute DurableMcpKinds" register_search_attribute DurableMcpKinds KeywordList
retry "search attribute DurableMcpNextExpiry" register_search_attribute DurableMcpNextExpiry Datetime
# DurableMcpResolvedAt: when a request of the workflow was last resolved (the inbox's history).
retry "search attribute DurableMcpResolvedAt" register_search_attribute DurableMcpResolvedAt Datetime
echo "setup: namespace $NAMESPACE ready, durable-mcp's search attributes registered"
