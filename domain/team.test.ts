import { describe, expect, it } from 'vitest';
import {
  changesNothing,
  ownerLeftRefusal,
  teamChangeRefusal,
  type MembershipState,
  type TeamChange,
} from './team.js';

const owner = { membershipId: 'owner', role: 'OWNER' };
const admin = { membershipId: 'admin', role: 'ADMIN' };
const member = (role: MembershipState['role'], active = true): MembershipState => ({
  membershipId: 'target',
  role,
  active,
});
const codeOf = (actor: typeof owner, target: MembershipState, change: TeamChange) =>
  teamChangeRefusal(actor, target, change)?.code ?? null;

describe('who may change whom in a team', () => {
  it('refuses a change of your own membership, whatever it is', () => {
    expect(
      teamChangeRefusal(owner, { ...member('OWNER'), membershipId: 'owner' }, { role: 'ADMIN' }),
    ).toMatchObject({ status: 403, code: 'TEAM_SELF_CHANGE' });
    expect(codeOf(admin, { ...member('ADMIN'), membershipId: 'admin' }, { active: false })).toBe(
      'TEAM_SELF_CHANGE',
    );
  });

  it("lets only an OWNER change an OWNER's membership or make an OWNER", () => {
    expect(codeOf(admin, member('OWNER'), { active: false })).toBe('ROLE_NOT_ALLOWED');
    expect(codeOf(admin, member('OWNER'), { role: 'OWNER' })).toBe('ROLE_NOT_ALLOWED');
    expect(codeOf(admin, member('DISPATCHER'), { role: 'OWNER' })).toBe('ROLE_NOT_ALLOWED');
    expect(codeOf(owner, member('OWNER'), { role: 'ADMIN' })).toBeNull();
    expect(codeOf(owner, member('DISPATCHER'), { role: 'OWNER' })).toBeNull();
    expect(codeOf(admin, member('DISPATCHER'), { role: 'ACCOUNTANT', active: false })).toBeNull();
  });

  it('changes staff roles among themselves; a DRIVER is only deactivated or reactivated', () => {
    expect(teamChangeRefusal(owner, member('STAFF'), { role: 'DRIVER' })).toMatchObject({
      status: 422,
      code: 'TEAM_ROLE_CHANGE_NOT_ALLOWED',
    });
    expect(codeOf(owner, member('DRIVER'), { role: 'DISPATCHER' })).toBe('TEAM_ROLE_CHANGE_NOT_ALLOWED');
    expect(codeOf(admin, member('DRIVER'), { active: false })).toBeNull();
    expect(codeOf(admin, member('DRIVER', false), { role: 'DRIVER', active: true })).toBeNull();
  });

  it('knows a change that changes nothing', () => {
    expect(changesNothing(member('STAFF'), { role: 'STAFF', active: true })).toBe(true);
    expect(changesNothing(member('STAFF', false), { active: false })).toBe(true);
    expect(changesNothing(member('STAFF'), { role: 'ADMIN' })).toBe(false);
  });
});

describe('the company keeps an owner', () => {
  const ownerTarget = { ...member('OWNER'), accountActive: true };

  it('refuses to demote or deactivate the last active OWNER with 409 LAST_OWNER', () => {
    expect(ownerLeftRefusal(ownerTarget, { role: 'ADMIN' }, 0)).toMatchObject({
      status: 409,
      code: 'LAST_OWNER',
    });
    expect(ownerLeftRefusal(ownerTarget, { active: false }, 0)?.code).toBe('LAST_OWNER');
  });

  it('lets an owner go while another active OWNER stays', () => {
    expect(ownerLeftRefusal(ownerTarget, { role: 'ADMIN' }, 1)).toBeNull();
  });

  it('does not count an owner who already does not hold the company (inactive, disabled account)', () => {
    expect(ownerLeftRefusal({ ...ownerTarget, active: false }, { role: 'ADMIN' }, 0)).toBeNull();
    expect(ownerLeftRefusal({ ...ownerTarget, accountActive: false }, { active: false }, 0)).toBeNull();
    expect(ownerLeftRefusal(ownerTarget, { role: 'OWNER', active: true }, 0)).toBeNull();
  });
});
