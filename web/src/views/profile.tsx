// The user's profile: what opens every context block whatever the question. Standing
// instructions (reworded here, the old wording kept as history), preferences, profile facts and
// pinned memories, each pinned or unpinned in place.
import { useState } from 'preact/hooks';
import type { MemoryFieldsFragment } from '../../../client/src/index.ts';
import { useAction, useApi, useQuery } from '../api.ts';
import { ErrorBox, Loading, MemoryLink, Section, Time } from '../ui.tsx';

type Memory = MemoryFieldsFragment;

export function ProfileView() {
  const { liveTick, user } = useApi();
  const loaded = useQuery((c) => c.profile(), [liveTick]);
  if (loaded.error && !loaded.data) return <ErrorBox error={loaded.error} retry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const { profile } = loaded.data;
  return (
    <div class="view profile-page">
      <h1>Profile of {user}</h1>
      <p class="muted">
        What opens every context block, whatever the question: standing instructions the user gave the assistant, what
        they prefer, who they are, and pinned memories. Said once, each is kept (protected from decay and clean-up)
        until a later one contradicts it.
      </p>
      {loaded.error && <ErrorBox error={loaded.error} retry={loaded.reload} />}
      <Part
        title="Standing instructions"
        rows={profile.instructions}
        empty="No standing instructions yet (“always…”, “never…”, “from now on…”)."
        editable
        onDone={loaded.reload}
      />
      <Part title="Preferences" rows={profile.preferences} empty="No preferences yet." onDone={loaded.reload} />
      <Part
        title="Profile"
        rows={profile.profile}
        empty="No profile facts yet (name, home, work, family, diet, languages, tools)."
        onDone={loaded.reload}
      />
      <Part
        title="Pinned"
        rows={profile.pinned}
        empty="Nothing else is pinned. Pin any memory from its page or here to keep it in every block."
        onDone={loaded.reload}
      />
    </div>
  );
}

function Part({
  title,
  rows,
  empty,
  editable = false,
  onDone,
}: {
  title: string;
  rows: Memory[];
  empty: string;
  editable?: boolean;
  onDone: () => void;
}) {
  return (
    <Section title={`${title} (${rows.length})`}>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul class="profile-list" aria-label={title}>
          {rows.map((m) => (
            <Row key={m.id} memory={m} editable={editable} onDone={onDone} />
          ))}
        </ul>
      )}
    </Section>
  );
}

function Row({ memory, editable, onDone }: { memory: Memory; editable: boolean; onDone: () => void }) {
  const { viewer } = useApi();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memory.content);
  const pin = useAction(
    (c): Promise<unknown> => (memory.pinned ? c.unpinMemory({ id: memory.id }) : c.pinMemory({ id: memory.id })),
  );
  const edit = useAction((c, content: string) => c.editInstruction({ id: memory.id, content }));
  const error = pin.error ?? edit.error;
  return (
    <li class="profile-item" data-id={memory.id}>
      <div class="row">
        <span class="profile-text">{memory.content}</span>
        {memory.pinned && <span class="badge badge-pinned">pinned</span>}
        <span class="muted">
          <MemoryLink id={memory.id} /> · <Time at={memory.eventAt} />
        </span>
        <button
          type="button"
          disabled={viewer.readOnly || pin.busy}
          onClick={async () => {
            if (await pin.run()) onDone();
          }}
        >
          {memory.pinned ? 'Unpin' : 'Pin'}
        </button>
        {editable && (
          <button type="button" disabled={viewer.readOnly} aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit…
          </button>
        )}
      </div>
      {editing && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (await edit.run(text.trim())) {
              setEditing(false);
              onDone();
            }
          }}
        >
          <label>
            New wording (the old one is kept as history, superseded by it)
            <textarea
              rows={2}
              value={text}
              onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
              required
            />
          </label>
          <div class="row">
            <button
              type="submit"
              class="primary"
              disabled={edit.busy || !text.trim() || text.trim() === memory.content}
            >
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {error && <ErrorBox error={error} />}
    </li>
  );
}
