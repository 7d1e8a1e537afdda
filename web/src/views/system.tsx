// Stats, background jobs (pending, failed and waiting for a retry, dead) and the effective
// configuration at a glance. Jobs and config are the admin's; a scoped token sees its counts.
import { useState } from 'preact/hooks';
import { JobStatus, type JobsQuery } from '../../../client/src/index.ts';
import { useApi, useQuery } from '../api.ts';
import { count, ErrorBox, Loading, num, Section, Time } from '../ui.tsx';

export function SystemView() {
  const { viewer } = useApi();
  return (
    <div class="view">
      <h1>System</h1>
      <div class="grid two">
        <Stats />
        {viewer.admin ? (
          <Jobs />
        ) : (
          <Section title="Jobs">
            {<p class="muted">The job queue and the configuration need the admin token.</p>}
          </Section>
        )}
        {viewer.admin && <Config />}
      </div>
    </div>
  );
}

function Stats() {
  const { liveTick, user, viewer } = useApi();
  const stats = useQuery((c) => c.stats({}), [liveTick]);
  if (stats.error && !stats.data) return <ErrorBox error={stats.error} retry={stats.reload} />;
  if (!stats.data) return <Loading />;
  const s = stats.data.stats;
  const rows: [string, number][] = [
    ['active memories', s.memories.active],
    ['mid-term', s.memories.mid],
    ['long-term', s.memories.long],
    ['facts', s.memories.facts],
    ['reflections', s.memories.reflections],
    ['archived memories', s.memories.archived],
    ['turns', s.turns],
    ['sessions', s.sessions],
    ['entities', s.entities],
  ];
  return (
    <Section title={`Stats of ${viewer.admin ? user : (viewer.userId ?? user)}`}>
      <dl class="stats">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value.toLocaleString('en')}</dd>
          </div>
        ))}
      </dl>
      <p class="muted">
        Jobs: {s.jobs.pending} pending, {s.jobs.running} running, {s.jobs.dead} dead · full-text search{' '}
        {s.features.fts ? 'FTS5' : 'LIKE'} · vectors {s.features.vec ? 'available' : 'off'}
      </p>
      {s.extraction.length > 0 && (
        <div class="table-wrap">
          <table class="table">
            <caption>Extraction</caption>
            <thead>
              <tr>
                <th scope="col">path</th>
                <th scope="col">runs</th>
                <th scope="col">failures</th>
                <th scope="col">facts</th>
                <th scope="col">avg ms</th>
              </tr>
            </thead>
            <tbody>
              {s.extraction.map((e) => (
                <tr key={e.path}>
                  <td>{e.path}</td>
                  <td>{e.runs}</td>
                  <td>{e.failures}</td>
                  <td>{e.facts}</td>
                  <td>{num(e.averageMs, 1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

type Tab = 'pending' | 'failed' | 'dead';

function Jobs() {
  const { liveTick } = useApi();
  const [tab, setTab] = useState<Tab>('pending');
  const jobs = useQuery(
    (c) =>
      Promise.all([c.jobs({ status: JobStatus.Pending, first: 100 }), c.jobs({ status: JobStatus.Dead, first: 100 })]),
    [liveTick],
  );
  const lists: Record<Tab, JobsQuery['jobs']> = {
    pending: jobs.data?.[0].jobs.filter((j) => !j.lastError) ?? [],
    failed: jobs.data?.[0].jobs.filter((j) => j.lastError) ?? [],
    dead: jobs.data?.[1].jobs ?? [],
  };
  const shown = lists[tab];
  return (
    <Section title="Jobs">
      <div class="tabs" role="tablist" aria-label="job status">
        {(['pending', 'failed', 'dead'] as const).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} onClick={() => setTab(t)}>
            {t} ({lists[t].length})
          </button>
        ))}
      </div>
      {jobs.error && <ErrorBox error={jobs.error} retry={jobs.reload} />}
      {!jobs.data && !jobs.error && <Loading />}
      {jobs.data && shown.length === 0 && (
        <p class="muted">
          No {tab} jobs{tab === 'failed' ? ' (failed attempts waiting for a retry)' : ''}.
        </p>
      )}
      {shown.length > 0 && (
        <div class="table-wrap" role="tabpanel">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">type</th>
                <th scope="col">attempts</th>
                <th scope="col">due</th>
                <th scope="col">on</th>
                <th scope="col">last error</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((job) => (
                <tr key={job.id}>
                  <td>{job.id}</td>
                  <td>{job.type}</td>
                  <td>
                    {job.attempts}/{job.maxAttempts}
                  </td>
                  <td>
                    <Time at={job.runAt} />
                  </td>
                  <td>{job.sessionId ?? (job.turnId !== null ? `turn ${job.turnId}` : '')}</td>
                  <td class="error-text">{job.lastError ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted">{count(lists.pending.length + lists.failed.length, 'job')} waiting (up to 100 shown).</p>
    </Section>
  );
}

function Config() {
  const config = useQuery((c) => c.config(), []);
  if (config.error) return <ErrorBox error={config.error} retry={config.reload} />;
  if (!config.data) return <Loading />;
  const sections = Object.entries(config.data.config as Record<string, unknown>);
  const shown = (value: unknown) => (typeof value === 'string' ? value || '""' : JSON.stringify(value));
  return (
    <Section title="Configuration">
      <div class="config">
        {sections.map(([name, value]) => (
          <details key={name} open>
            <summary>{name}</summary>
            <table class="kv">
              <tbody>
                {(value !== null && typeof value === 'object' && !Array.isArray(value)
                  ? Object.entries(value as Record<string, unknown>)
                  : [['', value] as const]
                ).map(([key, v]) => (
                  <tr key={key}>
                    <th scope="row">{key}</th>
                    <td>{shown(v)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        ))}
      </div>
    </Section>
  );
}
