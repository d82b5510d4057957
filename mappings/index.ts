/** The entity registry: every entity definition by name, in load order (parents first). */
import { brokerOffices } from './broker-offices.ts';
import { brokers } from './brokers.ts';
import { companies } from './companies.ts';
import { personnel } from './personnel.ts';
import type { EntityDef, EntityName, FieldDef } from './types.ts';

/** Load order: every entity after the parents it denormalizes from. */
export const ENTITIES: readonly EntityDef[] = Object.freeze([brokers, brokerOffices, companies, personnel]);
export const ENTITY_NAMES: readonly EntityName[] = Object.freeze(ENTITIES.map((e) => e.name));

const byName = new Map<string, EntityDef>(ENTITIES.map((e) => [e.name, e]));

/** The definition of an entity, or undefined for an unknown name. */
export function findEntity(name: string): EntityDef | undefined {
  return byName.get(name);
}

/** The definition of an entity; throws for an unknown name (a programming or CLI-usage error). */
export function entity(name: string): EntityDef {
  const e = byName.get(name);
  if (!e) throw new Error(`unknown resource "${name}": expected one of ${ENTITY_NAMES.join(', ')}`);
  return e;
}

/** A field of an entity by name. */
export function fieldOf(def: EntityDef, name: string): FieldDef | undefined {
  return def.fields.find((x) => x.name === name);
}

/** Fields read from CSV columns, in definition order: the CSV header of the entity. */
export function csvFields(def: EntityDef): FieldDef[] {
  return def.fields.filter((x) => x.source.kind === 'csv');
}

export type { EntityDef, EntityName, FieldDef } from './types.ts';
