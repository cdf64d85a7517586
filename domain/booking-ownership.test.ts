import { describe, expect, it } from 'vitest';
import { ownsBooking } from './booking-ownership.js';

describe('whose booking a booking is, on every traveller surface', () => {
  const traveller = { userId: 'user-1', passengerId: 'passenger-1' };

  it('the owner, whatever passenger it names', () => {
    expect(ownsBooking(traveller, { ownerUserId: 'user-1', passengerId: 'passenger-9' })).toBe(true);
  });

  it('the traveller whose canonical passenger it was made for: an imported booking has no owner', () => {
    expect(ownsBooking(traveller, { ownerUserId: null, passengerId: 'passenger-1' })).toBe(true);
    expect(ownsBooking(traveller, { ownerUserId: 'user-2', passengerId: 'passenger-1' })).toBe(true);
  });

  it('no one else; a traveller without a passenger profile reaches only what they own', () => {
    expect(ownsBooking(traveller, { ownerUserId: 'user-2', passengerId: 'passenger-2' })).toBe(false);
    expect(ownsBooking(traveller, { ownerUserId: null, passengerId: null })).toBe(false);
    const profileless = { userId: 'user-3', passengerId: null };
    expect(ownsBooking(profileless, { ownerUserId: null, passengerId: null })).toBe(false);
  });
});
