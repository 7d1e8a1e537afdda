// The token box: asks for an API token (the admin's SM_API_TOKEN or a scoped one from `sm token
// create`), keeps it in this tab's sessionStorage only, and says why it asks (none given, or the
// one given was refused: expired, wrong or revoked).
import { useEffect, useRef, useState } from 'preact/hooks';

export function TokenDialog(props: {
  reason: string | null;
  hasToken: boolean;
  canClose: boolean;
  onSave: (token: string) => void;
  onClear: () => void;
  onClose: () => void;
}) {
  const { reason, hasToken, canClose, onSave, onClear, onClose } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState('');

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    input.current?.focus();
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    if (token) onSave(token);
  };

  return (
    <dialog
      ref={dialog}
      class="token-dialog"
      aria-labelledby="token-title"
      onCancel={(event) => {
        event.preventDefault();
        if (canClose) onClose();
      }}
    >
      <form onSubmit={submit}>
        <h2 id="token-title">API token</h2>
        {reason && (
          <p class="error" role="alert">
            {reason}
          </p>
        )}
        <p class="muted">
          The admin token (<code>SM_API_TOKEN</code>) shows every user; a scoped token (
          <code>sm token create --user U</code>) shows its own space. It is kept in this tab only (sessionStorage) and
          sent as <code>Authorization: Bearer</code>; it never goes into a URL.
        </p>
        <label>
          Token
          <input
            ref={input}
            type="password"
            name="token"
            autoComplete="off"
            spellcheck={false}
            value={value}
            onInput={(event) => setValue((event.target as HTMLInputElement).value)}
            required
          />
        </label>
        <div class="row">
          <button type="submit" class="primary">
            Use this token
          </button>
          {hasToken && (
            <button type="button" onClick={onClear}>
              Forget the token
            </button>
          )}
          {canClose && (
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          )}
        </div>
      </form>
    </dialog>
  );
}
