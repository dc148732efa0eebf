/** Modal dialogs on `<dialog>`: confirmations, typed confirmations and form dialogs. */
import { describeError } from './api.ts';
import { h, type Child } from './dom.ts';

let seq = 0;

export type DialogOptions = {
  title: string;
  body: Child;
  confirmLabel: string;
  /** Styles the confirm button as destructive. */
  danger?: boolean;
  /** When set, the person must type this exact text before confirming. */
  typeToConfirm?: string;
  /** Runs on confirm; a thrown error is shown in the dialog, which stays open. */
  action?: () => Promise<unknown>;
};

/** Opens a modal dialog and resolves true when confirmed (and the action, if any, succeeded). */
export function confirmDialog(opts: DialogOptions): Promise<boolean> {
  const id = `dlg-${++seq}`;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const confirmBtn = h('button', { type: 'submit', class: opts.danger ? 'danger' : 'primary' }, opts.confirmLabel);
  const cancelBtn = h('button', { type: 'button' }, 'Cancel');
  const typed = opts.typeToConfirm
    ? h('input', { id: `${id}-typed`, type: 'text', autocomplete: 'off', spellcheck: 'false', required: true })
    : undefined;
  const form = h(
    'form',
    { method: 'dialog' },
    h('h2', { id: `${id}-title` }, opts.title),
    h('div', { class: 'dialog-body' }, opts.body),
    typed &&
      h(
        'p',
        { class: 'field' },
        h('label', { for: `${id}-typed` }, 'Type ', h('code', null, opts.typeToConfirm!), ' to confirm'),
        typed,
      ),
    error,
    h('div', { class: 'dialog-actions' }, cancelBtn, confirmBtn),
  );
  const dialog = h('dialog', { 'aria-labelledby': `${id}-title` }, form);
  if (typed) {
    confirmBtn.disabled = true;
    typed.addEventListener('input', () => (confirmBtn.disabled = typed.value.trim() !== opts.typeToConfirm));
  }
  document.body.append(dialog);
  return new Promise((resolve) => {
    let result = false;
    const close = () => dialog.close();
    cancelBtn.addEventListener('click', close);
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (typed && typed.value.trim() !== opts.typeToConfirm) return;
      if (opts.action) {
        confirmBtn.disabled = cancelBtn.disabled = true;
        confirmBtn.setAttribute('aria-busy', 'true');
        try {
          await opts.action();
        } catch (err) {
          error.textContent = describeError(err);
          error.hidden = false;
          confirmBtn.disabled = cancelBtn.disabled = false;
          confirmBtn.removeAttribute('aria-busy');
          return;
        }
      }
      result = true;
      close();
    });
    dialog.showModal();
    (typed ?? (opts.danger ? cancelBtn : confirmBtn)).focus();
  });
}

/** A short-lived message at the bottom of the screen, announced to screen readers. */
export function toast(text: string): void {
  const region = toastRegion();
  const item = h('p', { class: 'toast' }, text);
  region.append(item);
  setTimeout(() => item.remove(), 5000);
}

/** The live region for toasts; created at start-up so screen readers already watch it when the first toast arrives. */
export function toastRegion(): HTMLElement {
  let region = document.getElementById('toasts');
  if (!region) {
    region = h('div', { id: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(region);
  }
  return region;
}
