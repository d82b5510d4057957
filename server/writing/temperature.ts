/**
 * The personal-play temperature: a per-user override of the global temperature (0-2, or null to
 * clear it), shared by every key of the user, used when a job's writing.play_source is personal.
 * Kept by settings-store.ts.
 */
import type { Services } from '../context.ts';
import type { KeyRecord } from '../services/keys.ts';

/** The body of POST and PATCH /v1/writing/temperature (never a user id: the key names the user). */
export const TEMPERATURE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['temperature'],
  properties: { temperature: { oneOf: [{ type: 'number', minimum: 0, maximum: 2 }, { type: 'null' }], description: '0 to 2, or null to clear the override.' } },
};

export interface TemperatureView {
  global_temperature: number;
  personal_play_temperature_override: number | null;
  effective_temperature: number;
  temperature_source: 'user' | 'global';
}

export async function getTemperature(services: Services, key: Pick<KeyRecord, 'org' | 'user'>): Promise<TemperatureView> {
  const override = await services.writingSettings.temperature(key);
  const global = services.config.writingTemperature;
  return { global_temperature: global, personal_play_temperature_override: override, effective_temperature: override ?? global, temperature_source: override === null ? 'global' : 'user' };
}

export async function setTemperature(services: Services, key: Pick<KeyRecord, 'org' | 'user'>, value: number | null): Promise<TemperatureView> {
  await services.writingSettings.setTemperature(key, value);
  return getTemperature(services, key);
}
