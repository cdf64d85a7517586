/**
 * Every page of a list, from offset 0 until a page comes back with fewer than `limit` rows:
 * `read(paging)` fetches one page given its `limit=…&offset=…` query, `rows(page)` says what it
 * holds. The history-page tests read a whole selection this way to show no row repeats or is skipped.
 */
export async function everyPage<Page>(
  read: (paging: string) => Promise<Page>,
  rows: (page: Page) => readonly unknown[],
  limit: number,
): Promise<Page[]> {
  const pages: Page[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await read(`limit=${limit}&offset=${offset}`);
    pages.push(page);
    if (rows(page).length < limit) return pages;
  }
}
