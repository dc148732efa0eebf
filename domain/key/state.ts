import type { KeyEvent } from './events.ts';

/**
 * What the write side knows of a key: whether it exists and is still usable. Everything
 * a reader wants (name, grants, last use) is in the read model's key document.
 */
export type KeyState = {
  readonly status: 'none' | 'active' | 'revoked';
  readonly id?: number;
};

export const NO_KEY: KeyState = { status: 'none' };

export function evolveKey(state: KeyState, event: KeyEvent): KeyState {
  switch (event.type) {
    case 'KeyIssued':
      return { status: 'active', id: event.data.id };
    case 'KeyRevoked':
      return state.status === 'none' ? state : { ...state, status: 'revoked' };
    case 'KeyUsed':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

