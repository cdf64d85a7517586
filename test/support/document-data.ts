import type { SnapshotData } from '../../domain/documents.js';

/**
 * A complete document snapshot as a builder would freeze it: two travellers with boarding
 * credentials, a collected cash payment and a cancellation, so every kind has what it prints.
 */
export function sampleSnapshotData(overrides: Partial<SnapshotData> = {}): SnapshotData {
  return {
    company: { name_ar: 'شركة القدموس للنقل', name_en: 'Qadmous Transport', phone: '+963 11 000 0000' },
    booking: {
      id: '8d3c1a52-54c6-4b5e-9a7e-2f1a0c9d7e11',
      code: 'BK7Q2M4X',
      status: 'CONFIRMED',
      created_at: '2026-11-20T09:15:00.000Z',
      seats_count: 2,
      subtotal: 50_000,
      discount: 5_000,
      total: 45_000,
      currency: 'SYP',
      payment_status: 'PAID',
    },
    trip: {
      origin: { ar: 'دمشق', en: 'Damascus' },
      destination: { ar: 'حلب', en: 'Aleppo' },
      departure_at: '2026-11-25T05:30:00.000Z',
      arrival_at: '2026-11-25T10:45:00.000Z',
      pickup: {
        name: { ar: 'كراج البولمان', en: 'Pullman Station' },
        address: { ar: 'طريق المطار، دمشق', en: 'Airport Road, Damascus' },
      },
    },
    travellers: [
      {
        name: 'Rami Haddad',
        seat_number: '3A',
        leg: 1,
        credential: credentialText('Rami Haddad', '3A'),
      },
      {
        name: 'ليلى الخطيب',
        seat_number: '3B',
        leg: 1,
        credential: credentialText('ليلى الخطيب', '3B'),
      },
    ],
    payment: {
      number: 'RCT-2026-000123',
      method: 'CASH',
      amount: 45_000,
      collected_at: '2026-11-21T12:00:00.000Z',
      source: 'office',
    },
    cancellation: { cancelled_at: '2026-11-22T08:00:00.000Z', reason: 'TRIP_CANCELLED' },
    issued_at: '2026-11-21T12:00:00.000Z',
    ...overrides,
  };
}

/** A credential-shaped text about as long as a signed boarding credential. */
function credentialText(travellerName: string, seatNumber: string): string {
  const payload = {
    v: 1,
    ticketId: '0f5c2b8e-7d1e-4a52-8f11-6a0c3c2d9b01',
    tripId: '5a1e7c3d-2b9f-4e61-a8d0-1f2e3d4c5b6a',
    companyId: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    legSequence: 1,
    travellerName,
    seatNumber,
    departureAt: '2026-11-25T05:30:00.000Z',
    keyId: 'k3yIdAbCdEf12345',
  };
  return `${JSON.stringify(payload)}.${'S'.repeat(86)}`;
}
