/**
 * Faults together, as a person fixing a server meets them: the variants they are made of, composed.
 * The run must fail exactly the union of what each fails alone, and block only what each may block:
 * one fault, one requirement red, even with others beside it.
 */
import { compose, type Wrap } from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';
import { createVariants } from './create.ts';
import { listVariants } from './list.ts';
import { showVariants } from './show.ts';

const all = [...listVariants, ...createVariants, ...showVariants];

/** A variant made of the named faulty variants, declaring the union of what they declare. */
function together(name: string, does: string, parts: readonly string[]): Variant {
  const of = parts.map((part) => {
    const v = all.find((x) => x.name === part);
    if (!v || !('wrap' in v.server) || !v.server.wrap) throw new Error(`no wrapping variant ${part}`);
    return { ...v, wrap: v.server.wrap as Wrap };
  });
  const blocks = [...new Set(of.flatMap((v) => (Array.isArray(v.blocks) ? v.blocks : [])))];
  return {
    name,
    kind: 'faulty',
    does,
    breaks: [...new Set(of.flatMap((v) => v.breaks))],
    ...(blocks.length > 0 ? { blocks } : {}),
    server: { wrap: compose(...of.map((v) => v.wrap)) },
  };
}

export const combinedVariants: Variant[] = [
  together(
    'three-faults',
    'answers creates 200, accepts a limit above 100, and sends no Deprecation or Sunset (create-answers-200, limit-over-max-accepted and no-deprecation-headers at once)',
    ['create-answers-200', 'limit-over-max-accepted', 'no-deprecation-headers'],
  ),
];
