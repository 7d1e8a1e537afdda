// What a person does to one memory: confirm it, correct it (the old one is archived, superseded by
// the new), or forget it for good. Correct and forget open a form under the buttons first.
import { useState } from 'preact/hooks';
import type {
  ConfirmMemoryMutation,
  CorrectMemoryMutation,
  ForgetMutation,
  MemoryQuery,
} from '../../../client/src/index.ts';
import { type Action, useAction, useApi } from '../api.ts';
import { href } from '../router.ts';
import { ErrorBox } from '../ui.tsx';

type Memory = NonNullable<MemoryQuery['memory']>;
type Mode = 'none' | 'correct' | 'forget';

type ButtonsProps = {
  memory: Memory;
  readOnly: boolean;
  mode: Mode;
  toggle: (mode: Mode) => void;
  confirm: Action<[], ConfirmMemoryMutation>;
  onConfirmed: () => void;
};

function Buttons({ memory, readOnly, mode, toggle, confirm, onConfirmed }: ButtonsProps) {
  const active = memory.status === 'ACTIVE';
  return (
    <div class="row">
      <button
        type="button"
        disabled={readOnly || confirm.busy || !active || memory.protected}
        title={memory.protected ? 'already protected' : 'full confidence, never decays, exempt from cleanup'}
        onClick={async () => {
          if (await confirm.run()) onConfirmed();
        }}
      >
        Confirm
      </button>
      <button
        type="button"
        disabled={readOnly || !active}
        aria-expanded={mode === 'correct'}
        onClick={() => toggle('correct')}
      >
        Correct…
      </button>
      <button
        type="button"
        class="danger"
        disabled={readOnly}
        aria-expanded={mode === 'forget'}
        onClick={() => toggle('forget')}
      >
        Forget…
      </button>
      {readOnly && <span class="muted">This token is read-only.</span>}
    </div>
  );
}

type CorrectProps = {
  memory: Memory;
  text: string;
  setText: (text: string) => void;
  correct: Action<[string], CorrectMemoryMutation>;
  onCancel: () => void;
};

function CorrectForm({ memory, text, setText, correct, onCancel }: CorrectProps) {
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const result = await correct.run(text.trim());
        if (result) location.hash = href('memory', result.correctMemory.memory.id);
      }}
    >
      <label>
        Corrected fact (the old one is archived, superseded by it)
        <textarea
          rows={2}
          value={text}
          onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
          required
        />
      </label>
      <div class="row">
        <button type="submit" class="primary" disabled={correct.busy || !text.trim() || text.trim() === memory.content}>
          Save correction
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type ForgetProps = {
  memory: Memory;
  forget: Action<[], ForgetMutation>;
  onForgotten: (deleted: number) => void;
  onCancel: () => void;
};

function ForgetConfirm({ memory, forget, onForgotten, onCancel }: ForgetProps) {
  return (
    <div class="inline-form" role="group" aria-label="Forget this memory">
      <p>
        Forget memory #{memory.id} for good? Its text, search entries and vectors are deleted; only its decision log
        stays.
      </p>
      <div class="row">
        <button
          type="button"
          class="danger"
          disabled={forget.busy}
          onClick={async () => {
            const result = await forget.run();
            if (result) onForgotten(result.forget.deleted);
          }}
        >
          Forget it
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function Actions({
  memory,
  onDone,
  onNotice,
}: {
  memory: Memory;
  onDone: () => void;
  onNotice: (text: string) => void;
}) {
  const { viewer } = useApi();
  const [mode, setMode] = useState<Mode>('none');
  // Kept here, so that closing and reopening the form keeps what was typed.
  const [text, setText] = useState(memory.content);
  const confirm = useAction((c) => c.confirmMemory({ id: memory.id }));
  const correct = useAction((c, content: string) => c.correctMemory({ id: memory.id, content }));
  const forget = useAction((c) => c.forget({ id: memory.id }));
  const error = confirm.error ?? correct.error ?? forget.error;
  const close = () => setMode('none');
  return (
    <div class="actions">
      <Buttons
        memory={memory}
        readOnly={viewer.readOnly}
        mode={mode}
        toggle={(next) => setMode(mode === next ? 'none' : next)}
        confirm={confirm}
        onConfirmed={() => {
          onNotice('Confirmed: it no longer decays.');
          onDone();
        }}
      />
      {mode === 'correct' && (
        <CorrectForm memory={memory} text={text} setText={setText} correct={correct} onCancel={close} />
      )}
      {mode === 'forget' && (
        <ForgetConfirm
          memory={memory}
          forget={forget}
          onCancel={close}
          onForgotten={(deleted) => {
            close();
            onNotice(`Forgotten: ${deleted === 1 ? '1 memory' : `${deleted} memories`} deleted.`);
            onDone();
          }}
        />
      )}
      {error && <ErrorBox error={error} />}
    </div>
  );
}
