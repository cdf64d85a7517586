/**
 * The condition of a many-row `update seat_allocations … where ${allocationsInIdOrder(…)}`: the rows
 * matching `where` (SQL over seat_allocations' own columns, unqualified), locked in id order before
 * they change. Two writers that meet on the same allocations (a seat lock or a journey hold freeing
 * lapsed holds, a hold batch closed by its DELETE, expiry or sweep, a journey released, confirmed or
 * cancelled) then take them in the same order and wait for each other; in scan order they could
 * deadlock. A row another writer changed meanwhile is rechecked against `where` once it is locked.
 */
export function allocationsInIdOrder(where: string): string {
  return `id in (select id from seat_allocations where ${where} order by id for update)`;
}
