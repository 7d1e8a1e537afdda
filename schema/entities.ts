// Entities: the people, places and things that memories and turns mention. Listing and search
// of entities arrive with entity extraction; for now they are reached from memories and turns.
import { builder } from './builder.ts';
import { EntityRef } from './refs.ts';

EntityRef.implement({
  description: 'A named entity (a person, place, organisation, thing...), with its aliases.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Stable integer id.' }),
    name: t.exposeString('name', { description: 'Its canonical name.' }),
    type: t.exposeString('type', { description: 'Its type (e.g. `person`, `place`, `organization`).' }),
    aliases: t.exposeStringList('aliases', { description: 'Other names it goes by.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'A short description, once enriched.' }),
    mentionCount: t.exposeInt('mentionCount', { description: 'How many memories and turns mention it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first seen.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});
