/**
 * Addressed requests (docs/people.md): the `assignees` check (errors name the field), who is an assignee, the approval
 * policy's assignees, and the default of a call with a login's principal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assigneesProblem,
  isAddressedTo,
  isAssignee,
  normalizeAssignees,
  personLabel,
  signedInPersonOf,
  widenAssignees,
} from '../../src/contract/assignees.js';
import { approvalRequest, isPolicyProblem, parseApprovalPolicy } from '../../src/contract/approval.js';
import { stepInputProblem, toolCallInputProblem } from '../../src/workflows/input.js';
import { assigneesOf } from '../../src/workflows/tool-call/index.js';

describe('addressed requests: assignees', () => {
  it('accepts users and roles, and names the field that is wrong', () => {
    assert.equal(assigneesProblem({ users: ['ana@example.com'], roles: ['on-call'] }), undefined);
    assert.equal(assigneesProblem(undefined), undefined);
    assert.equal(toolCallInputProblem({ server: 'fx', tool: 'echo', assignees: { roles: ['ops'] } }), undefined);
    const cases: Array<[unknown, string]> = [
      [['ana'], 'mcpToolCall: field "assignees" must be an object like {"users":["ana@example.com"],"roles":["on-call"]}, got ["ana"]'],
      [{ users: 'ana' }, 'mcpToolCall: field "assignees.users" must be an array of strings, got "ana"'],
      [
        { users: ['ana', ''] },
        'mcpToolCall: field "assignees.users[1]" must be a non-empty string of at most 200 characters without control characters, got ""',
      ],
      [
        { roles: ['ops\n'] },
        'mcpToolCall: field "assignees.roles[0]" must be a non-empty string of at most 200 characters without control characters, got "ops\\n"',
      ],
      [{ groups: ['x'] }, 'mcpToolCall: field "assignees.groups" is not a field of assignees; it takes users, roles, got ["x"]'],
      [{ users: [] }, 'mcpToolCall: field "assignees" must name at least one user or role (leave it out for a request anyone may answer), got {"users":[]}'],
    ];
    for (const [assignees, message] of cases) assert.equal(toolCallInputProblem({ server: 'fx', tool: 'echo', assignees }), message);
    assert.equal(
      stepInputProblem({ name: 'pay', server: 'fx', tool: 'echo', assignees: { roles: [7] } } as never),
      'step "pay": field "assignees.roles[0]" must be a non-empty string of at most 200 characters without control characters, got 7',
    );
  });

  it('matches a person by email or subject (any case) or by a role; no assignees: anyone', () => {
    const a = normalizeAssignees({ users: ['Ana@Example.com', 'ana@example.com '], roles: ['finance'] })!;
    assert.deepEqual(a, { users: ['Ana@Example.com'], roles: ['finance'] });
    assert.equal(isAssignee(a, { subject: 'x', email: 'ana@example.com' }), true);
    assert.equal(isAssignee(a, { subject: 'ana@example.com' }), true);
    assert.equal(isAssignee(a, { subject: 'bob', email: 'bob@example.com', roles: ['finance'] }), true);
    assert.equal(isAssignee(a, { subject: 'bob', email: 'bob@example.com', roles: ['ops'] }), false);
    assert.equal(isAssignee(undefined, { subject: 'bob' }), true);
    assert.equal(isAddressedTo(undefined, { subject: 'bob' }), false, 'an unaddressed request is nobody\'s "mine"');
    assert.deepEqual(widenAssignees({ users: ['ana'] }, { roles: ['lead'] }), { users: ['ana'], roles: ['lead'] });
    assert.equal(
      personLabel({ subject: '248', email: 'ana@example.com', issuer: 'https://id.example.com', source: 'oidc' }),
      'ana@example.com (oidc https://id.example.com sub=248)',
    );
  });

  it('compares ASCII letters without case and nothing else: a look-alike (the Kelvin sign, full-width letters) is another person', () => {
    const kate = normalizeAssignees({ users: ['kate@example.com'] })!;
    assert.equal(isAssignee(kate, { subject: 's', email: 'KATE@Example.COM' }), true);
    assert.equal(isAssignee(kate, { subject: 's', email: '\u212Aate@example.com' }), false, 'the Kelvin sign is not "k"');
    assert.equal(isAssignee(kate, { subject: '\u212Aate@example.com' }), false);
    assert.equal(isAssignee(kate, { subject: 's', email: '\uff4bate@example.com' }), false, 'a full-width "k" is not "k"');
    assert.equal(isAssignee({ users: ['\u212Aate@example.com'] }, { subject: 's', email: 'kate@example.com' }), false);
    // Listing the look-alike first does not drop the real address (the two are different users).
    assert.deepEqual(normalizeAssignees({ users: ['\u212Aate@example.com', 'kate@example.com'] }), { users: ['\u212Aate@example.com', 'kate@example.com'] });
    assert.equal(isAssignee(normalizeAssignees({ users: ['\u212Aate@example.com', 'kate@example.com'] }), { subject: 's', email: 'kate@example.com' }), true);
  });

  it("an email assignee matches only a verified email of the configured issuer: not an unverified one, not another issuer's", () => {
    const ISSUER = 'https://id.example.com';
    const forAna = { users: ['ana@example.com'] };
    const claims = { sub: 'a-1', iss: ISSUER, email: 'ana@example.com', email_verified: true };
    const ana = signedInPersonOf(claims, ISSUER);
    assert.deepEqual(ana, { subject: 'a-1', issuer: ISSUER, email: 'ana@example.com', source: 'oidc' });
    assert.ok(isAssignee(forAna, ana!));
    // Unverified (false, absent, or the string "true"): the address is anyone's to claim; the person is their subject only.
    for (const email_verified of [false, undefined, 'true']) {
      const mallory = signedInPersonOf({ ...claims, sub: 'm-1', email_verified }, ISSUER);
      assert.deepEqual(mallory, { subject: 'm-1', issuer: ISSUER, source: 'oidc' }, `email_verified: ${String(email_verified)}`);
      assert.ok(!isAssignee(forAna, mallory!));
    }
    // Another issuer's (verified) same address names nobody here.
    assert.equal(signedInPersonOf({ ...claims, iss: 'https://other.example.com' }, ISSUER), undefined);
    assert.equal(signedInPersonOf({ ...claims, iss: `${ISSUER}/` }, ISSUER), undefined);
    // A subject is matched as it was; an empty or missing one names nobody.
    assert.ok(isAssignee({ users: ['a-1'] }, signedInPersonOf({ sub: 'a-1', iss: ISSUER }, ISSUER)!));
    assert.equal(signedInPersonOf({ sub: '', iss: ISSUER }, ISSUER), undefined);
  });

  it("a call's assignees, else its login's principal, else none", () => {
    assert.deepEqual(assigneesOf({ assignees: { roles: ['ops'] }, auth: { principal: 'ana' } }), { assignees: { roles: ['ops'] } });
    assert.deepEqual(assigneesOf({ auth: { principal: 'ana@example.com' } }), { assignees: { users: ['ana@example.com'] } });
    assert.deepEqual(assigneesOf({}), {});
  });

  it('the approval policy names who approves; its approvals carry them', () => {
    const toMs = () => NaN;
    const policy = parseApprovalPolicy({ tools: ['transfer'], assignees: { roles: ['finance'] } }, toMs);
    assert.ok(!isPolicyProblem(policy));
    assert.deepEqual(policy.assignees, { roles: ['finance'] });
    const { context } = approvalRequest({ callId: 'c1', server: 'fx', arguments: {} }, { name: 'transfer' }, policy);
    assert.deepEqual(context.assignees, { roles: ['finance'] });
    const timed = parseApprovalPolicy({ remindAfter: 3_600_000, escalateAfter: 7_200_000, escalateTo: { roles: ['lead'] }, approvals: 2 }, toMs);
    assert.ok(!isPolicyProblem(timed));
    assert.deepEqual(timed.followUps, { remindAfterMs: 3_600_000, escalateAfterMs: 7_200_000, escalateTo: { roles: ['lead'] } });
    assert.equal(timed.approvals, 2);
    assert.deepEqual(parseApprovalPolicy({ approvals: 0 }, toMs), { field: 'approval.approvals', problem: 'must be a whole number from 1 to 20, got 0' });
    assert.equal((parseApprovalPolicy({ remindAfter: 'soon' }, toMs) as { field: string }).field, 'approval.remindAfter');
    assert.deepEqual(parseApprovalPolicy({ assignees: { roles: 'finance' } }, toMs), {
      field: 'approval.assignees.roles',
      problem: 'must be an array of strings, got "finance"',
    });
  });
});
