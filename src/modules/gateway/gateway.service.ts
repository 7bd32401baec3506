import type { Principal } from '../../http/access.js';

/**
 * One part of the gateway context. Each module that has something an agent should see at the
 * start of a session contributes a section; the gateway itself knows none of them.
 */
export interface ContextSection {
  /** The key of the section in `data`. */
  name: string;
  /** Whether this token may see the section at all; hidden sections are not even loaded. */
  visibleTo(principal: Principal): boolean;
  load(ownerId: string, principal: Principal): Promise<unknown>;
}

export function createGatewayService(deps: { sections: ContextSection[] }) {
  const names = new Set<string>();
  for (const section of deps.sections) {
    if (names.has(section.name)) throw new Error(`Two gateway context sections are named ${section.name}`);
    names.add(section.name);
  }
  const sections = [...deps.sections];

  return {
    /** The context for one token: every section it may see, loaded in parallel. */
    async context(principal: Principal): Promise<Record<string, unknown>> {
      const visible = sections.filter((section) => section.visibleTo(principal));
      const values = await Promise.all(visible.map((section) => section.load(principal.ownerId, principal)));
      const data: Record<string, unknown> = {};
      visible.forEach((section, i) => {
        data[section.name] = values[i];
      });
      return data;
    },

    sectionNames(): string[] {
      return sections.map((section) => section.name);
    },
  };
}

export type GatewayService = ReturnType<typeof createGatewayService>;
