import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';
import { Link, navigate, useQuery, withQuery } from '../router';

type Message = Schemas['ChatMessage'];
type Source = Schemas['ChatSource'];

/** Conversations listed beside the chat: the most recently active. */
const CONVERSATIONS_SHOWN = 20;

/**
 * Chat with the active persona, as agents do through POST /brain/chat: the reply draws on the
 * knowledge base and memory, says which model wrote it (or that none did: without a model the
 * reply quotes what matched), and lists its numbered sources, documents and memory entries
 * apart, each a link to where it is kept. The open conversation is kept in the address.
 */
export function ChatPage() {
  const query = useQuery();
  const conversationId = query.get('conversation') ?? undefined;
  // Bumped after each turn: the conversation list reads again (a new one, a new order).
  const [turns, setTurns] = useState(0);

  return (
    <>
      <PageHeader title="Chat">
        {conversationId ? <Link href="/chat">New conversation</Link> : null}
      </PageHeader>
      <p className="muted">
        Chat with your active persona. Replies draw on your knowledge base and your memory, and list the documents and entries they used.
      </p>
      <Conversation key={conversationId ?? 'new'} id={conversationId} onTurn={() => setTurns((n) => n + 1)} />
      <Conversations open={conversationId} changed={turns} />
    </>
  );
}

/** One conversation: its messages (a new one: none yet) and the form that sends the next. */
function Conversation({ id, onTurn }: { id: string | undefined; onTurn: () => void }) {
  const loaded = useLoad(async (): Promise<Message[]> => (id ? unwrap(await api.GET('/api/v1/brain/conversations/{id}', { params: { path: { id } } })).data.messages : []), [id]);
  // Turns sent from this page, shown at once, before (or instead of) reading the conversation again.
  const [sent, setSent] = useState<Message[]>([]);
  const [message, setMessage] = useState('');
  const { busy, error, run } = useAction();
  const formId = useId();
  const end = useRef<HTMLDivElement>(null);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = message;
    await run(async () => {
      const answer = unwrap(await api.POST('/api/v1/brain/chat', { body: { message: text, ...(id ? { conversationId: id } : {}) }, headers: { accept: 'application/json' } }));
      // JSON was asked for: the event stream (text) is the other answer the route has.
      if (typeof answer === 'string') throw new Error('The server answered a stream where JSON was asked for. Reload the page and send again');
      const reply = answer.data;
      setMessage('');
      onTurn();
      // A new conversation gets its address (a reload or a link returns to it) and opens there,
      // read as stored: the turn just sent is its first.
      if (!id) return navigate(withQuery('/chat', { conversation: reply.conversationId }));
      const at = new Date().toISOString();
      setSent((list) => [
        ...list,
        { id: `sent-${list.length}-user`, role: 'user', content: text, sources: [], mode: null, model: null, createdAt: at },
        { id: `sent-${list.length}-reply`, role: 'assistant', content: reply.reply, sources: reply.sources, mode: reply.mode, model: reply.model ?? null, createdAt: at },
      ]);
    });
  };
  // A block, not an arrow's value: browsers may answer scrollIntoView with a promise, which React would take for a cleanup.
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [sent.length]);

  return (
    <section aria-labelledby={`${formId}-heading`} className="stack">
      <h2 id={`${formId}-heading`} className="visually-hidden">
        Conversation
      </h2>
      <Show loaded={loaded} what="Opening the conversation">
        {(stored) => {
          const messages = [...stored, ...sent];
          return messages.length === 0 ? (
            <Empty>Ask something: the reply uses your knowledge base and memory, and says what it used.</Empty>
          ) : (
            <ol className="chat-log" aria-label="Messages, oldest first">
              {messages.map((m) => (
                <li key={m.id} className={m.role === 'user' ? 'chat-user' : 'chat-reply'}>
                  {m.role === 'user' ? <UserMessage message={m} /> : <Reply message={m} />}
                </li>
              ))}
            </ol>
          );
        }}
      </Show>
      <div ref={end} />
      <form className="card" onSubmit={(event) => void send(event)} aria-label="Send a message">
        <label>
          Message
          <textarea
            value={message}
            rows={3}
            required
            onChange={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              // Enter sends, as in any chat; Shift+Enter is a new line.
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={busy || !message.trim()}>
            {busy ? 'Waiting for the reply…' : 'Send'}
          </button>
        </div>
        <ActionError error={error} />
      </form>
    </section>
  );
}

function UserMessage({ message }: { message: Message }) {
  return (
    <article className="card chat-message" aria-label="You said">
      <p className="prose">{message.content}</p>
    </article>
  );
}

/** A reply: its text, who wrote it (the model, or no model at all), and its sources. */
function Reply({ message }: { message: Message }) {
  const knowledge = numbered(message.sources).filter(({ source }) => source.type === 'knowledge');
  const memory = numbered(message.sources).filter(({ source }) => source.type === 'memory');
  return (
    <article className="card chat-message" aria-label="Reply">
      <p className="prose">{message.content}</p>
      <p className="muted meta answered-by">
        {message.mode === 'llm' ? (
          <>
            Answered by the model <strong className="mono">{message.model ?? 'the endpoint did not name'}</strong>
          </>
        ) : (
          'Answered without a language model: none is configured on this server, so the reply quotes your knowledge base and memory'
        )}
        {' · '}
        <When at={message.createdAt} />
      </p>
      {knowledge.length > 0 ? (
        <SourceList title="From the knowledge base" items={knowledge} href={(source) => withQuery('/knowledge', { document: source.id })} />
      ) : null}
      {memory.length > 0 ? <SourceList title="From memory" items={memory} href={(source) => withQuery('/memory', { entry: source.id })} /> : null}
    </article>
  );
}

/** The sources with the numbers the prompt gave them ([1] is the first of the list). */
function numbered(sources: Source[]): Array<{ number: number; source: Source }> {
  return sources.map((source, index) => ({ number: index + 1, source }));
}

function SourceList({ title, items, href }: { title: string; items: Array<{ number: number; source: Source }>; href: (source: Source) => string }) {
  const id = useId();
  return (
    <div className="sources">
      <h3 id={id} className="meta">
        {title}
      </h3>
      <ul aria-labelledby={id}>
        {items.map(({ number, source }) => (
          <li key={`${source.type}:${source.id}`}>
            <span className="mono">[{number}]</span>{' '}
            <Link href={href(source)}>{source.type === 'memory' ? (source.text ?? source.title) : source.title}</Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The most recently active conversations, each a link that opens it. */
function Conversations({ open, changed }: { open: string | undefined; changed: number }) {
  const list = useLoad(async () => unwrap(await api.GET('/api/v1/brain/conversations', { params: { query: { limit: CONVERSATIONS_SHOWN } } })).data, [changed]);
  return (
    <section aria-labelledby="chat-conversations" className="stack">
      <h2 id="chat-conversations">Conversations</h2>
      <Show loaded={list} what="Loading conversations">
        {(conversations) =>
          conversations.length === 0 ? (
            <Empty>No conversation yet.</Empty>
          ) : (
            <ul className="cards">
              {conversations.map((conversation) => (
                <li key={conversation.id}>
                  <Link href={withQuery('/chat', { conversation: conversation.id })} aria-current={conversation.id === open ? 'page' : undefined}>
                    {conversation.title}
                  </Link>{' '}
                  <span className="muted meta">
                    {conversation.messageCount} messages · <When at={conversation.updatedAt} />
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}
