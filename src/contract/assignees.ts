/**
 * Addressed requests (docs/people.md): who may answer a request. A call, a pipeline step or the approval
 * policy names `assignees: { users?: [...], roles?: [...] }`; a person may answer when one of the users is their email
 * or subject, or one of the roles is theirs. A request without assignees is answered by anyone allowed into the inbox,
 * as before. Pure and deterministic (workflow code, activities and the inbox use it alike).
 */
/** Who may answer a request: users (emails or subjects) and roles. At least one of them, each non-empty. */
export interface Assignees {
  users?: string[];
  roles?: string[];
}

/** At most this many users and this many roles. */
export const MAX_ASSIGNEES = 50;
/** At most this many characters per user or role. */
export const MAX_ASSIGNEE_LENGTH = 200;

const KEYS = ['users', 'roles'] as const;

/**
 * What is wrong with an `assignees` value (undefined: nothing, or absent), naming the field below `field`
 * (e.g. `assignees.users[2]`), and the value there: the caller prefixes it with its own context.
 */
export function assigneesProblem(v: unknown, field = 'assignees'): { field: string; problem: string; value: unknown } | undefined {
  if (v === undefined) return undefined;
  const shape = 'must be an object like {"users":["ana@example.com"],"roles":["on-call"]}';
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { field, problem: shape, value: v };
  const extra = Object.keys(v).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (extra.length > 0)
    return { field: `${field}.${extra[0]}`, problem: 'is not a field of assignees; it takes users, roles', value: (v as Record<string, unknown>)[extra[0]!] };
  let any = 0;
  for (const key of KEYS) {
    const list = (v as Record<string, unknown>)[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return { field: `${field}.${key}`, problem: 'must be an array of strings', value: list };
    if (list.length > MAX_ASSIGNEES) return { field: `${field}.${key}`, problem: `may name at most ${MAX_ASSIGNEES}`, value: `${list.length} of them` };
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      // eslint-disable-next-line no-control-regex
      if (typeof s !== 'string' || s.trim() === '' || s.length > MAX_ASSIGNEE_LENGTH || /[\u0000-\u001f\u007f]/.test(s)) {
        return {
          field: `${field}.${key}[${i}]`,
          problem: `must be a non-empty string of at most ${MAX_ASSIGNEE_LENGTH} characters without control characters`,
          value: s,
        };
      }
    }
    any += list.length;
  }
  if (any === 0) return { field, problem: 'must name at least one user or role (leave it out for a request anyone may answer)', value: v };
  return undefined;
}

/** The assignees, trimmed and without repeats (users compared case-insensitively); undefined when none are named. */
export function normalizeAssignees(v: Assignees | undefined): Assignees | undefined {
  if (!v) return undefined;
  const users = dedupe(
    (v.users ?? []).map((s) => s.trim()),
    (s) => sameCase(s),
  );
  const roles = dedupe(
    (v.roles ?? []).map((s) => s.trim()),
    (s) => s,
  );
  if (users.length === 0 && roles.length === 0) return undefined;
  return { ...(users.length > 0 ? { users } : {}), ...(roles.length > 0 ? { roles } : {}) };
}

/** Both lists together (an escalation widens the assignees). */
export function widenAssignees(a: Assignees | undefined, b: Assignees | undefined): Assignees | undefined {
  if (!a) return normalizeAssignees(b);
  if (!b) return normalizeAssignees(a);
  return normalizeAssignees({ users: [...(a.users ?? []), ...(b.users ?? [])], roles: [...(a.roles ?? []), ...(b.roles ?? [])] });
}

function dedupe(list: string[], key: (s: string) => string): string[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const k = key(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Who may answer, as one line: "ana@example.com, role finance". */
export function assigneesLine(a: Assignees): string {
  return [...(a.users ?? []), ...(a.roles ?? []).map((r) => `role ${r}`)].join(', ');
}

/** Where the inbox learned who a person is: a verified sign-in, the token (or the CLI's `--as`), or a proxy's header. */
export type PersonSource = 'oidc' | 'token' | 'proxy' | 'link';

/** A person as the inbox knows them. */
export interface Person {
  /** The stable id: the ID token's `sub`, or the name a token, `--as` or a proxy header gives. */
  subject: string;
  issuer?: string;
  email?: string;
  roles?: string[];
  source: PersonSource;
}

/**
 * A user id as compared: ASCII letters folded to lower case, nothing else changed. Full Unicode case folding or NFKC
 * would make look-alikes equal (the Kelvin sign U+212A lowercases to "k", a full-width "ｋ" normalizes to it): an
 * address someone else could register would then match an assignee.
 */
export function sameCase(s: string): string {
  return s.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
}

/** What a sign-in reads of an ID token (or of its session): the subject, the issuer, the email and whether it is verified, roles. */
export interface SignInClaims {
  sub: unknown;
  iss: unknown;
  email?: unknown;
  email_verified?: unknown;
  roles?: string[];
}

/**
 * The person a sign-in names (docs/people.md "Sign in"): for the configured `issuer` only (another issuer's claims name
 * nobody), with the email only when that issuer says it verified it (`email_verified: true`, the boolean). An email is a
 * way to address a person, matched only when verified and only for the same issuer: anyone may claim an unverified
 * address, and another issuer may give the same address to someone else.
 */
export function signedInPersonOf(claims: SignInClaims, issuer: string): Person | undefined {
  if (claims.iss !== issuer || typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  const email = claims.email_verified === true && typeof claims.email === 'string' && claims.email.length <= 254 ? claims.email : undefined;
  return { subject: claims.sub, issuer, ...(email ? { email } : {}), ...(claims.roles?.length ? { roles: claims.roles } : {}), source: 'oidc' };
}

/**
 * Whether `person` is one of `assignees` (by email or subject, ASCII letters compared without case; or by a role). No
 * assignees: anyone. The email is a verified one of the configured issuer only (`signedInPersonOf`: docs/people.md).
 */
export function isAssignee(assignees: Assignees | undefined, person: Pick<Person, 'subject' | 'email' | 'roles'>): boolean {
  if (!assignees) return true;
  const ids = [person.subject, person.email].filter((s): s is string => typeof s === 'string' && s !== '').map(sameCase);
  if (assignees.users?.some((u) => ids.includes(sameCase(u)))) return true;
  return assignees.roles?.some((r) => person.roles?.includes(r)) ?? false;
}

/** Whether the request is addressed to `person` in particular (not merely open to anyone): the inbox's "mine". */
export function isAddressedTo(assignees: Assignees | undefined, person: Pick<Person, 'subject' | 'email' | 'roles'>): boolean {
  return assignees !== undefined && isAssignee(assignees, person);
}

/**
 * Who answered, as recorded beside the answer (a string, at most 200 characters, as `by` always was): the email (else
 * the subject), then where it came from, e.g. `ana@example.com (oidc https://id.example.com sub=248289761001)`.
 */
export function personLabel(p: Person): string {
  const who = p.email ?? p.subject;
  const detail = p.source === 'oidc' ? `oidc ${p.issuer ?? ''} sub=${p.subject}`.replace(/ {2,}/g, ' ') : p.source;
  return `${who} (${detail})`.slice(0, 200);
}
