import { Type, type TSchema } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';
import type { ContextSection } from './gateway.section.js';

/**
 * The gateway context, made of its sections' own schemas in their order. Sections shown to
 * every token are required; the others appear only when the token's scopes allow them.
 * Unknown section names still pass through.
 */
export function gatewayContextSchema(sections: ReadonlyArray<Pick<ContextSection, 'name' | 'schema' | 'always'>>) {
  const properties: Record<string, TSchema> = {};
  for (const section of sections) properties[section.name] = section.always ? section.schema : Type.Optional(section.schema);
  return Data(Type.Object(properties, { additionalProperties: true, title: 'GatewayContext' }));
}
