import { raw } from '@mikro-orm/postgresql';
import { Refusal } from '../../domain/refusal.js';
import { Company } from '../entities/company.js';
import { CompanySettings } from '../entities/insight.js';
import type { Database, TransactionClient } from '../orm.js';
import {
  ownPickupLocationOfStop,
  readCompanySettings,
  type CompanySettingsView,
} from '../queries/company-settings.js';
import type { ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordStaffAct, type RequestOrigin } from './audit.js';

/** The fields PATCH /settings may change; a field left out keeps its value. */
export interface CompanySettingsChange {
  nameAr?: string;
  nameEn?: string;
  phone?: string | null;
  email?: string | null;
  addressAr?: string;
  addressEn?: string;
  cancellationCutoffMinutes?: number | null;
  /** The stop id of the pickup point, as GET and POST /pickup-locations show it. */
  defaultPickupLocationId?: string | null;
}

/** The audit's before and after of each field the change names. */
function changedFields(
  before: CompanySettingsView,
  change: CompanySettingsChange,
): Record<string, { from: unknown; to: unknown }> {
  const current: Record<keyof CompanySettingsChange, unknown> = {
    ...before,
    defaultPickupLocationId: before.defaultPickupLocation?.stopId ?? null,
  };
  return Object.fromEntries(
    (Object.keys(change) as (keyof CompanySettingsChange)[])
      .filter((field) => change[field] !== undefined && change[field] !== current[field])
      .map((field) => [field, { from: current[field], to: change[field] }]),
  );
}

/**
 * Writes the change through the transaction's EntityManager (a dashboard CRUD write);
 * `pickupLocationId` is the pickup_locations row the change's default pickup point resolved to.
 */
async function applyChange(
  client: TransactionClient,
  companyId: string,
  change: CompanySettingsChange & { pickupLocationId?: string | null },
  staffUserId: string,
): Promise<void> {
  const em = client.em;
  const company = await em.findOneOrFail(Company, companyId);
  em.assign(company, {
    ...(change.nameAr !== undefined && { nameAr: change.nameAr }),
    ...(change.nameEn !== undefined && { nameEn: change.nameEn }),
    ...(change.phone !== undefined && { phone: change.phone }),
    ...(change.email !== undefined && { email: change.email }),
  });
  const settings =
    (await em.findOne(CompanySettings, companyId)) ?? em.create(CompanySettings, { companyId });
  em.assign(settings, {
    ...(change.addressAr !== undefined && { addressAr: change.addressAr }),
    ...(change.addressEn !== undefined && { addressEn: change.addressEn }),
    ...(change.cancellationCutoffMinutes !== undefined && {
      cancellationCutoffMinutes: change.cancellationCutoffMinutes,
    }),
    ...(change.pickupLocationId !== undefined && { defaultPickupLocationId: change.pickupLocationId }),
    updatedBy: staffUserId,
    // Stamped on every change: one of the names or the contact alone changes no column here.
    updatedAt: raw<Date>('now()'),
  });
  await em.flush();
}

/**
 * PATCH /settings: changes the company's names and contact (companies) and its operating settings
 * (company_settings) in one transaction that locks the company row, and records what changed
 * (company.settings.update, before and after of each field). A default pickup point, named by its
 * stop id, must be one of the company's own enabled points (422 PICKUP_LOCATION_NOT_OWNED);
 * company_settings keeps the pickup_locations row it resolves to.
 */
export async function saveCompanySettings(
  db: Database,
  input: { companyId: string; change: CompanySettingsChange; staffUserId: string; actor?: ActingMember },
  origin: RequestOrigin,
): Promise<CompanySettingsView> {
  // The company first (db/writes/active-company.ts): concurrent changes take turns, so each audit
  // row's "from" is what the change replaced; a suspension committed meanwhile refuses the change.
  return companyTransaction(db, input, 'update', async (client) => {
    const stopId = input.change.defaultPickupLocationId;
    const pickupLocationId = stopId ? await ownPickupLocationOfStop(client, input.companyId, stopId) : stopId;
    if (stopId && !pickupLocationId) {
      throw new Refusal(
        422,
        'PICKUP_LOCATION_NOT_OWNED',
        'The default pickup point must be an enabled pickup point of the company',
        {
          defaultPickupLocationId: stopId,
        },
      );
    }
    const before = await readCompanySettings(client, input.companyId);
    await applyChange(client, input.companyId, { ...input.change, pickupLocationId }, input.staffUserId);
    const actor = { staffUserId: input.staffUserId, ...origin };
    const target = { kind: 'company', id: input.companyId };
    const details = { changes: changedFields(before, input.change) };
    await recordStaffAct(client, actor, 'company.settings.update', target, details);
    return readCompanySettings(client, input.companyId);
  });
}
