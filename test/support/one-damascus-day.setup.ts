import { dayWithRoom } from './damascus-day.js';

/**
 * vitest `setupFiles` entry: runs in the file's worker just before each test file is imported, so
 * no test file starts within DAY_ROOM_MINUTES of Damascus midnight (21:00 UTC). Files that date
 * their data from "today" (futureDay, damascusDate(new Date()), report and analytics days) and
 * then read the server's today all run inside one day. At the top level, not in a beforeAll: files
 * also read the day while vitest collects them (module and describe scope), before any hook, and
 * vitest sets no timeout on a setup file, so a wait of minutes needs no hook timeout.
 */
await dayWithRoom();
