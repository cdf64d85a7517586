import type { LayoutDocument, LayoutIssue } from '../../domain/seat-layout.js';
import type { Database } from '../orm.js';
import { companyListing, companyRecordById } from './company-records.js';
import { iso, isoOrNull, pickColumns } from '../row-fields.js';

/** Reads of the company's fleet: buses, their layouts (management view), drivers. */
export interface BusRecord {
  id: string;
  plate_number: string;
  model: string;
  amenities: string[];
  capacity: number;
  status: 'ACTIVE' | 'MAINTENANCE' | 'RETIRED';
  legacy_seat_map: boolean;
  /** The active layout customers book on, if any. */
  layout: { id: string; version: number; seat_count: number } | null;
  created_at: string;
}

type BusRow = Omit<BusRecord, 'layout' | 'created_at'> & {
  layout_id: string | null;
  layout_version: number | null;
  layout_seat_count: number | null;
  created_at: string;
  total: number;
};

function toBus(row: BusRow): BusRecord {
  return {
    ...pickColumns(row, [
      'id',
      'plate_number',
      'model',
      'amenities',
      'capacity',
      'status',
      'legacy_seat_map',
    ]),
    layout:
      row.layout_id === null
        ? null
        : { id: row.layout_id, version: row.layout_version!, seat_count: row.layout_seat_count! },
    created_at: iso(row.created_at),
  };
}

const BUS_SELECT = `
  select b.id, b.plate_number, b.model, b.amenities, b.capacity, b.status, b.legacy_seat_map, b.created_at,
         l.id as layout_id, l.version as layout_version, l.seat_count as layout_seat_count,
         count(*) over ()::int as total
  from buses b
  left join bus_layouts l on l.bus_id = b.id and l.status = 'active'`;

export const listBuses = companyListing('buses', {
  select: `${BUS_SELECT} where b.company_id = $1`,
  orderBy: 'b.plate_number, b.id',
  map: toBus,
});

/** One bus of the company by id. */
export const findBus = companyRecordById(BUS_SELECT, 'b', toBus);

/** A saved layout version as the company sees it: the whole document, management notes included. */
export interface LayoutRecord {
  id: string;
  version: number;
  status: 'draft' | 'active' | 'archived';
  validation_status: 'valid' | 'invalid' | 'pending';
  validation_errors: LayoutIssue[];
  seat_count: number;
  layoutDocument: LayoutDocument;
  created_at: string;
  activated_at: string | null;
}

type LayoutRow = Omit<LayoutRecord, 'layoutDocument'> & {
  document: LayoutDocument;
  activated_at: string | null;
};

/**
 * The bus's active layout and its newest draft saved after it (the one being worked on), each
 * null when there is none.
 */
export async function readBusLayouts(
  db: Database,
  busId: string,
): Promise<{ active: LayoutRecord | null; draft: LayoutRecord | null }> {
  const rows = await db.query<LayoutRow>(
    `select id, version, status, validation_status, validation_errors, document, seat_count, created_at, activated_at
     from bus_layouts l
     where l.bus_id = $1 and (l.status = 'active' or (l.status = 'draft' and l.version > coalesce(
       (select max(version) from bus_layouts a where a.bus_id = $1 and a.status in ('active', 'archived')), 0)))
     order by l.version desc`,
    [busId],
  );
  const record = (row: LayoutRow | undefined): LayoutRecord | null =>
    row
      ? {
          ...pickColumns(row, [
            'id',
            'version',
            'status',
            'validation_status',
            'validation_errors',
            'seat_count',
          ]),
          layoutDocument: row.document,
          created_at: iso(row.created_at),
          activated_at: isoOrNull(row.activated_at),
        }
      : null;
  return {
    active: record(rows.find((row) => row.status === 'active')),
    draft: record(rows.find((row) => row.status === 'draft')),
  };
}

export interface DriverRecord {
  id: string;
  membership_id: string;
  name: string;
  email: string;
  active: boolean;
  created_at: string;
}

const DRIVER_SELECT = `
  select u.id, m.id as membership_id, u.name, u.email, (m.active and u.status = 'ACTIVE') as active,
         m.created_at, count(*) over ()::int as total
  from company_memberships m join staff_users u on u.id = m.staff_user_id
  where m.company_id = $1 and m.role = 'DRIVER'`;

type DriverRow = Omit<DriverRecord, 'created_at'> & { created_at: string; total: number };

const toDriver = ({ total: _total, created_at, ...driver }: DriverRow): DriverRecord => ({
  ...driver,
  created_at: iso(created_at),
});

/** The company's drivers: staff users with a DRIVER membership (inactive ones last). */
export const listDrivers = companyListing('drivers', {
  select: DRIVER_SELECT,
  orderBy: "(m.active and u.status = 'ACTIVE') desc, lower(u.name), u.id",
  map: toDriver,
});

export async function findDriver(
  db: Database,
  companyId: string,
  driverId: string,
): Promise<DriverRecord | undefined> {
  const rows = await db.query<DriverRow>(`${DRIVER_SELECT} and u.id = $2`, [companyId, driverId]);
  return rows[0] && toDriver(rows[0]);
}
