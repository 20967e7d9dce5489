/** How `check` and `tools <spec>` say whom a grant's call is made as (KindDescriptor.route). */
import type { CredentialKind } from '../../compiler/descriptor.js';

export function asCredential(kind: CredentialKind): string {
  return kind === 'none' ? 'without a credential' : `as ${kind}`;
}
