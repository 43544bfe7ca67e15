# durable-mcp worker image.
# Debian (glibc) base on purpose: @temporalio/core-bridge ships a glibc prebuilt binary, so never alpine.

# --- build: compile TypeScript and prebuild the workflow bundle (dist/workflow-bundle.js) ---
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

# --- runtime: production dependencies + dist/, as the non-root `node` user ---
FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
# glibc gives each thread (Temporal core, libuv) its own malloc arena; without a cap the worker's RSS keeps
# growing with every tool call (benchmark B3). Two arenas keep it flat.
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
# Temporal connection from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (TLS, API key: TEMPORAL_TLS_*, TEMPORAL_API_KEY);
# MCP servers from MCP_CONFIG (or append `--mcp-config PATH`). SIGTERM shuts the worker down gracefully.
CMD ["node", "dist/src/cli/main.js", "worker"]
