import type { PoolClient } from 'pg';

export interface LabelledSeat {
  seat_id: string;
  seat_number: string;
  seat_class: 'STANDARD' | 'VIP';
}

/**
 * The seats with these passenger-visible labels on the bus's active (hence valid) layout, in the
 * order asked, and the labels that layout lacks. Callers decide how a missing label is refused.
 */
export async function seatsByLabel(
  q: Pick<PoolClient, 'query'>,
  busId: string,
  labels: string[],
): Promise<{ seats: LabelledSeat[]; unknown: string[] }> {
  const { rows } = await q.query<LabelledSeat>(
    `select ls.seat_id, ls.seat_number, ls.seat_class
     from bus_layouts bl join layout_seats ls on ls.layout_id = bl.id
     where bl.bus_id = $1 and bl.status = 'active' and ls.seat_number = any($2::text[])`,
    [busId, labels],
  );
  const byLabel = new Map(rows.map((row) => [row.seat_number, row]));
  return {
    seats: labels.filter((label) => byLabel.has(label)).map((label) => byLabel.get(label)!),
    unknown: labels.filter((label) => !byLabel.has(label)),
  };
}
