import { beforeAll, describe, expect, it } from 'vitest';
import { coachLayout } from '../../../domain/layout-templates.js';
import type { LayoutDocument } from '../../../domain/seat-layout.js';
import type { TestResponse } from '../../support/harness.js';
import { useTestApp } from '../../support/harness.js';
import { dashboard, planningSnapshot, planningWorld, type PlanningWorld } from '../../support/planning.js';
import { NOT_ONE_LINE_TEXTS, PROSE, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * The fleet's free text other people read: a driver's name (manifests, dispatch, the trip list), a
 * bus's plate (tickets and trip data travellers see) and a layout element's management notes (staff
 * in the dashboard). None may hold a control or bidirectional-override character, which would make
 * one text read as another ("\u202E21" shows as "12"); notes are prose and keep line breaks and tabs.
 * A refusal is the route's code for a bad field and changes nothing.
 */

describe('fleet: the text rules of names, plates and notes', () => {
  const app = useTestApp();
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;

  /** Each text through `write` is 400 `errorCode` with an issue at `path`, and `rows` are as they were. */
  async function expectEachRefused(
    texts: Record<string, string>,
    write: (text: string) => Promise<TestResponse>,
    expected: { errorCode: string; path: string },
    rows: () => Promise<unknown>,
  ) {
    const before = await rows();
    for (const [what, text] of Object.entries(texts)) {
      const refused = await write(text);
      expect([refused.status, refused.body.errorCode], what).toEqual([400, expected.errorCode]);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: expected.path }),
      );
    }
    expect(await rows()).toEqual(before);
  }

  describe("a driver's name", () => {
    const createDriver = (name: string) =>
      dashboard(app, owner(), 'POST', '/drivers', {
        email: `driver-${Math.random().toString(36).slice(2, 10)}@company.test`,
        name,
        password: 'long enough secret',
      });

    it('with a control or bidirectional-override character, a line break or a tab is refused: nobody created', async () => {
      await expectEachRefused(
        { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS },
        createDriver,
        { errorCode: 'VALIDATION_FAILED', path: 'body.name' },
        async () => ({
          fleet: await planningSnapshot(app.db, world.companyId),
          users: await app.db.query(`select id from staff_users where email like 'driver-%@company.test'`),
        }),
      );
    });

    it('takes an Arabic name, stored and answered trimmed', async () => {
      const created = await createDriver('  خالد الحلبي ');
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.name).toBe('خالد الحلبي');
      const [stored] = await app.db.query<{ name: string }>('select name from staff_users where id = $1', [
        created.body.data.id,
      ]);
      expect(stored!.name).toBe('خالد الحلبي');
    });
  });

  describe("a bus's plate", () => {
    const createBus = (plate_number: string) => dashboard(app, owner(), 'POST', '/buses', { plate_number });

    it('with a control or bidirectional-override character is refused: no bus added', async () => {
      await expectEachRefused(
        // "DM \u202E321" is shown as "DM 123": another bus's plate to a traveller reading a ticket.
        { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS, 'an override in a plate': 'DM \u202E321' },
        createBus,
        { errorCode: 'VALIDATION_FAILED', path: 'body.plate_number' },
        () => planningSnapshot(app.db, world.companyId),
      );
    });

    it('takes an Arabic plate, stored as typed (upper case changes no Arabic letter)', async () => {
      const plate = `دمشق ${String(Math.floor(100_000 + Math.random() * 900_000))}`;
      const created = await createBus(plate);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.bus.plate_number).toBe(plate);
      const again = await createBus(plate);
      expect([again.status, again.body.errorCode]).toEqual([409, 'BUS_PLATE_TAKEN']);
    });
  });

  describe("a layout element's management notes", () => {
    let busId: string;
    const layout = () => coachLayout({ rows: 3, pattern: '2+2' });
    /** The layout with `notes` on the driver's place, its first seat and a toilet on a new row. */
    const withNotes = (notes: string): LayoutDocument => {
      const document = layout();
      document.grid.rows += 1;
      for (const index of [0, 2]) document.elements[index] = { ...document.elements[index]!, notes };
      document.elements.push({
        type: 'toilet',
        x: 0,
        y: 4,
        width: 1,
        height: 1,
        rotation: 0,
        deck: 1,
        notes,
      });
      return document;
    };
    const layoutRows = async () => ({
      fleet: await planningSnapshot(app.db, world.companyId),
      layouts: await app.db.query('select * from bus_layouts where bus_id = $1 order by id', [busId]),
    });

    beforeAll(async () => {
      const created = await dashboard(app, owner(), 'POST', '/buses', {
        plate_number: `N ${Math.random().toString(36).slice(2, 8)}`,
        template_id: 'standard-2x2',
      });
      expect(created.status, created.text).toBe(201);
      busId = created.body.data.bus.id;
    });

    it('with a control or bidirectional-override character is refused, draft or active, under either name', async () => {
      for (const field of ['layoutDocument', 'layout_document']) {
        for (const saveMode of ['draft', 'active']) {
          await expectEachRefused(
            UNPRINTABLE_TEXTS,
            (notes) =>
              dashboard(app, owner(), 'PUT', `/buses/${busId}/layout`, {
                [field]: withNotes(notes),
                saveMode,
              }),
            { errorCode: 'LAYOUT_INVALID', path: `body.${field}.elements.0.notes` },
            layoutRows,
          );
        }
      }
    });

    it('keeps notes of several lines with tabs, trims their ends, and leaves absent and empty notes as sent', async () => {
      const saved = await dashboard(app, owner(), 'PUT', `/buses/${busId}/layout`, {
        layoutDocument: withNotes(`  ${PROSE}\n`),
        saveMode: 'draft',
      });
      expect(saved.status, saved.text).toBe(200);
      const draft = saved.body.data.draft.layoutDocument as LayoutDocument;
      expect([0, 2, draft.elements.length - 1].map((index) => draft.elements[index]!.notes)).toEqual([
        PROSE,
        PROSE,
        PROSE,
      ]);
      expect(draft.elements[1]).not.toHaveProperty('notes');

      const empty = await dashboard(app, owner(), 'PUT', `/buses/${busId}/layout`, {
        layoutDocument: withNotes(''),
        saveMode: 'active',
      });
      expect(empty.status, empty.text).toBe(200);
      expect((empty.body.data.active.layoutDocument as LayoutDocument).elements[0]!.notes).toBe('');
    });

    it('refuses notes over 500 characters', async () => {
      await expectEachRefused(
        { '501 characters': 'n'.repeat(501) },
        (notes) =>
          dashboard(app, owner(), 'PUT', `/buses/${busId}/layout`, {
            layoutDocument: withNotes(notes),
            saveMode: 'draft',
          }),
        { errorCode: 'LAYOUT_INVALID', path: 'body.layoutDocument.elements.0.notes' },
        layoutRows,
      );
    });
  });
});
