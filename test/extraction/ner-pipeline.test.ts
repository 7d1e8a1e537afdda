// NER providers and the pipeline: regex patterns, compromise, the known-names matcher, the
// LLM provider through the real openai client, and the merge by span overlap.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compromiseEntities as entitiesOf,
  loadCompromise,
} from '../../server/core/entities/ner/compromise-provider.ts';
import { NameIndex } from '../../server/core/entities/ner/known-entities.ts';
import {
  accurateNerAvailability,
  accurateProviders,
  extractEntities,
  fastProviders,
  mergeBySpan,
} from '../../server/core/entities/ner/pipeline.ts';
import { regexEntities } from '../../server/core/entities/ner/regex-provider.ts';
import { displayName, entityKey, type NerEntity } from '../../server/core/entities/types.ts';
import { createLlm } from '../../server/llm/client.ts';
import { llmNerProvider, parseLlmEntities } from '../../server/llm/ner.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { testStore } from '../helpers/store.ts';

const brief = (entities: NerEntity[]) => entities.map((e) => [e.type, e.name]);
const nlp = await loadCompromise();
const compromiseEntities = (text: string) => entitiesOf(nlp, text);

describe('names and keys', () => {
  it('strips prefixes, possessives and punctuation; keys ignore case', () => {
    expect(displayName("Alice's", 'person')).toBe('Alice');
    expect(displayName('James’', 'person')).toBe('James');
    expect(displayName('Mel!', 'person')).toBe('Mel');
    expect(displayName('@bob', 'mention')).toBe('bob');
    expect(displayName('#Apollo', 'hashtag')).toBe('Apollo');
    expect(entityKey("ALICE's", 'person')).toBe('alice');
    expect(entityKey('Alice  Johnson', 'person')).toBe('alice johnson');
    expect(entityKey('Alice@Example.com', 'email')).toBe('alice@example.com');
    expect(entityKey('https://example.com/a/', 'url')).toBe('https://example.com/a');
  });
});

describe('regex provider', () => {
  it('finds mentions, hashtags, emails, URLs and dates with their spans', () => {
    const text =
      'Ping @bob_k about #apollo-2 (see https://example.com/x?y=1). Mail alice@example.com by 2024-05-01 or May 8th, 2023; not #42.';
    const found = regexEntities(text);
    expect(brief(mergeBySpan(found))).toEqual([
      ['mention', 'bob_k'],
      ['hashtag', 'apollo-2'],
      ['url', 'https://example.com/x?y=1'],
      ['email', 'alice@example.com'],
      ['date', '2024-05-01'],
      ['date', 'May 8th, 2023'],
    ]);
    for (const e of found) expect(text.slice(e.start, e.end)).toBe(e.text);
  });

  it('does not take the @ of an email for a mention, nor sentence punctuation for part of a URL', () => {
    expect(brief(mergeBySpan(regexEntities('write to a.b@c.io.')))).toEqual([['email', 'a.b@c.io']]);
    expect(brief(regexEntities('go to www.example.org/docs.'))).toEqual([['url', 'www.example.org/docs']]);
  });
});

describe('compromise provider', () => {
  it('finds people, places and organisations with exact spans, proper nouns only', () => {
    const text = 'I went to Google in New York with Caroline and my mom. Hey Mel!';
    const found = compromiseEntities(text);
    expect(brief(found)).toEqual(
      expect.arrayContaining([
        ['person', 'Caroline'],
        ['person', 'Mel'],
        ['location', 'New York'],
        ['organization', 'Google'],
      ]),
    );
    expect(found.map((e) => e.name)).not.toContain('mom');
    for (const e of found) expect(text.slice(e.start, e.end)).toBe(e.text);
  });

  it('keeps spans right after multi-unit characters', () => {
    const text = '🎉🎉 Dinner with Caroline in Lisbon';
    for (const e of compromiseEntities(text)) expect(text.slice(e.start, e.end)).toBe(e.text);
  });
});

describe('merge by span overlap', () => {
  const e = (type: NerEntity['type'], start: number, end: number, confidence: number, provider = 'p'): NerEntity => ({
    text: '',
    name: `${type}${start}`,
    type,
    start,
    end,
    confidence,
    provider,
  });

  it('keeps the highest confidence, then the longest span, and returns text order', () => {
    const merged = mergeBySpan([
      e('person', 10, 14, 0.6),
      e('mention', 9, 14, 0.95),
      e('person', 0, 13, 0.6),
      e('location', 20, 25, 0.6),
    ]);
    expect(merged.map((m) => [m.type, m.start])).toEqual([
      ['mention', 9],
      ['location', 20],
    ]);
    const tie = mergeBySpan([e('person', 0, 5, 0.6, 'a'), e('person', 0, 13, 0.6, 'b'), e('other', 13, 20, 0.5)]);
    expect(tie.map((m) => [m.provider, m.end])).toEqual([
      ['b', 13],
      ['p', 20],
    ]);
  });

  it('lets regex win over compromise for "@bob"', () => {
    const text = 'Met Alice Johnson with @bob';
    const merged = mergeBySpan([...regexEntities(text), ...compromiseEntities(text)]);
    expect(brief(merged)).toEqual([
      ['person', 'Alice Johnson'],
      ['mention', 'bob'],
    ]);
  });
});

describe('known names', () => {
  const index = new NameIndex();
  index.add({ id: 1, name: 'Alice Johnson', type: 'person', aliases: [], mentionCount: 3 });
  index.add({ id: 2, name: 'New York', type: 'location', aliases: ['NYC'], mentionCount: 1 });
  index.add({ id: 3, name: 'Will', type: 'person', aliases: [], mentionCount: 1 });
  index.add({ id: 4, name: 'bob', type: 'mention', aliases: [], mentionCount: 1 });

  it('matches names, aliases and a unique first name; one-word names only when capitalised', () => {
    const text = "Alice's flight to new york and NYC; will Will come? alice johnson too. bob";
    const found = index.match(text);
    expect(found.map((f) => [f.entityId, f.text, f.confidence])).toEqual([
      [1, 'Alice', 0.75],
      [2, 'new york', 0.85],
      [2, 'NYC', 0.85],
      [3, 'Will', 0.85],
      [1, 'alice johnson', 0.85],
    ]);
  });

  it('stays weak before another capitalised word, and ignores an ambiguous first name', () => {
    expect(index.match('Alice Smith called').map((f) => f.confidence)).toEqual([0.5]);
    index.add({ id: 5, name: 'Alice Brown', type: 'person', aliases: [], mentionCount: 1 });
    expect(index.match('Alice called')).toEqual([]);
    index.remove(5);
    expect(index.match('Alice called').map((f) => f.entityId)).toEqual([1]);
  });
});

describe('strategies', () => {
  it('fast is regex + known; accurate adds compromise and the injected LLM, as configured', async () => {
    const { store } = await testStore();
    const llm = { name: 'llm', extract: () => [] };
    expect((await fastProviders(store, DEFAULT_SPACE)).map((p) => p.name)).toEqual(['regex', 'known']);
    expect((await accurateProviders(store, DEFAULT_SPACE, { llm })).map((p) => p.name)).toEqual([
      'regex',
      'known',
      'compromise',
      'llm',
    ]);
    expect((await accurateProviders(store, DEFAULT_SPACE)).map((p) => p.name)).toEqual([
      'regex',
      'known',
      'compromise',
    ]);

    const regexOnly = (await testStore({ ner: { providers: ['regex'] } })).store;
    expect((await fastProviders(regexOnly, DEFAULT_SPACE)).map((p) => p.name)).toEqual(['regex']);
    expect(accurateNerAvailability(regexOnly.config)).toEqual({
      available: false,
      reason: expect.stringContaining('neither compromise nor llm'),
    });
    const llmOnly = (await testStore({ ner: { providers: ['regex', 'llm'] } })).store;
    expect(accurateNerAvailability(llmOnly.config).available).toBe(false);
    expect(accurateNerAvailability(llmOnly.config, { llm }).available).toBe(true);
  });

  it('rejects an unknown provider name, naming the key', async () => {
    await expect(testStore({ ner: { providers: ['spacy'] } })).rejects.toThrowError(/ner\.providers\.0/);
  });
});

describe('llm provider (real openai client, local server)', () => {
  let server: Awaited<ReturnType<typeof startOpenAiServer>>;
  beforeAll(async () => (server = await startOpenAiServer()));
  afterAll(() => server.close());

  const provider = async () => {
    const { store } = await testStore({ llm: { endpoint: server.url, model: 'test-model', timeout_s: 0.5 } });
    return llmNerProvider(createLlm(store.config.llm, {})!);
  };

  it('maps the JSON answer onto spans of the text and drops names the text does not contain', async () => {
    server.script({
      reply:
        '```json\n{"entities":[{"text":"project apollo","type":"project"},{"text":"Acme","type":"company"},{"text":"Zed","type":"person"}]}\n```',
    });
    const text = 'We ship Project Apollo with ACME soon';
    const found = await (await provider()).extract(text);
    expect(found.map((f) => [f.type, f.text, f.start])).toEqual([
      ['project', 'Project Apollo', 8],
      ['other', 'ACME', 28],
    ]);
    const request = server.requests.at(-1)!.body;
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: text });
  });

  it('a failing or invalid LLM leaves the other providers’ results (fallback)', async () => {
    const text = 'Met Alice Johnson with @bob';
    const providers = [...(await accurateProviders((await testStore()).store, DEFAULT_SPACE)), await provider()];
    server.script({ status: 500 });
    const failed = await extractEntities(text, providers);
    expect(brief(failed.entities)).toEqual([
      ['person', 'Alice Johnson'],
      ['mention', 'bob'],
    ]);
    expect(failed.failures).toEqual([{ provider: 'llm', error: expect.stringContaining('500') }]);
    server.script({ reply: 'Sure! Alice is a person.' });
    const invalid = await extractEntities(text, providers);
    expect(invalid.entities).toHaveLength(2);
    expect(invalid.failures[0]!.error).toMatch(/not JSON/);
    expect(() => parseLlmEntities('{"entities":[{"type":"person"}]}', text)).toThrowError(
      /invalid entities at entities\.0\.text/,
    );
  });
});
