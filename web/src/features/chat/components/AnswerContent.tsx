import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button } from 'antd';
import { Link } from 'react-router';
import type { TurnError, TurnPhase } from '../hooks/use-chat-session';
import { formatCost } from '../lib/format';
import type { ChatRole, Citation, Usage } from '../types';
import { Markdown } from './Markdown';

export const WALLET_PATH = '/dashboard/wallet';

/** A stored answer stopped after the model had the question: only reading it was charged (docs/web-chat.md). */
export const STOPPED_CHARGED_INPUT = 'Stopped — charged for reading your question only.';
/** Stopped before any text: whether the model had the question yet is known once the conversation reloads. */
export const STOPPED_BEFORE_ANSWER = 'Stopped before the answer started. If the model had already read your question, only that is charged.';

/**
 * A stored answer stopped before its first token (status 'stopped', issue 29 item 3): "Stopped" when
 * nothing was charged (the model was not called yet), else what reading the question cost.
 */
export function stoppedNote(usage?: Pick<Usage, 'totalMicros'> | null): string {
  const total = usage?.totalMicros ?? 0;
  return total > 0 ? `Stopped · charged ${formatCost(total)} for reading your question` : 'Stopped';
}

interface AnswerContentProps {
  text: string;
  phase: TurnPhase;
  error?: TurnError;
  role: ChatRole;
  /** Stored status of an answer loaded from the server ('partial' / 'failed' get a note). */
  storedStatus?: string;
  onRetry?: () => void;
  /** The answer's citations: its [n] markers open the cited passage. */
  citations?: readonly Citation[] | null;
  /** A stored answer's usage (what a stopped answer was charged). */
  usage?: Usage | null;
}

/** An assistant answer: Markdown while it streams, then its end state (stopped, error with actions). */
export function AnswerContent({ text, phase, error, role, storedStatus, onRetry, citations, usage }: AnswerContentProps) {
  const streaming = phase === 'streaming';
  return (
    <div className="chat-answer" aria-busy={phase === 'waiting' || streaming}>
      {phase === 'waiting' && !text && (
        <p className="chat-thinking">
          Thinking
          <span className="chat-thinking__dots" aria-hidden="true">
            <span>.</span>
            <span>.</span>
            <span>.</span>
          </span>
        </p>
      )}
      {text && <Markdown content={text} streaming={streaming} citations={citations} />}
      {phase === 'stopped' && text && <p className="chat-note">Stopped. The answer above is incomplete.</p>}
      {phase === 'stopped' && !text && <p className="chat-note">{STOPPED_BEFORE_ANSWER}</p>}
      {!error && phase === 'done' && storedStatus === 'partial' && (
        <p className="chat-note">{text ? 'This answer is incomplete.' : STOPPED_CHARGED_INPUT}</p>
      )}
      {!error && phase === 'done' && storedStatus === 'failed' && <p className="chat-note">This answer failed.</p>}
      {!error && phase === 'done' && storedStatus === 'stopped' && (
        <p className="chat-note" data-testid="answer-stopped">
          {stoppedNote(usage)}
        </p>
      )}
      {error && <TurnErrorAlert error={error} role={role} onRetry={onRetry} />}
    </div>
  );
}

function TurnErrorAlert({ error, role, onRetry }: { error: TurnError; role: ChatRole; onRetry?: () => void }) {
  switch (error.kind) {
    case 'funds':
      return (
        <Alert
          type="warning"
          showIcon
          className="chat-alert"
          title={error.message}
          description={
            role !== 'subscriber' ? (
              <Link to={WALLET_PATH} className="chat-alert__link">
                Add Funds
              </Link>
            ) : undefined
          }
        />
      );
    case 'rate':
      return <Alert type="warning" showIcon className="chat-alert" title={error.message} />;
    case 'network':
      return (
        <Alert
          type="error"
          showIcon
          className="chat-alert"
          title={error.message}
          action={
            onRetry && (
              <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={onRetry}>
                Retry
              </Button>
            )
          }
        />
      );
    case 'answer':
    default:
      return <Alert type="error" showIcon className="chat-alert" title={error.message} />;
  }
}
