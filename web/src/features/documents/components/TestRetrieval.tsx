import { ExportOutlined, SearchOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input } from 'antd';
import { useId, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { z } from 'zod';
import { errorDescription } from '../api/documents';
import { useKnowledgeSearch } from '../api/knowledge';
import { passagePreview, queryError } from '../lib/knowledge-query';
import type { KnowledgePassage, RetrievalMode } from '../types';

const schema = z.object({
  query: z.string().superRefine((value, ctx) => {
    const message = queryError(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  }),
});
type RetrievalValues = z.infer<typeof schema>;

export const RETRIEVAL_PLACEHOLDER = 'Ask a question to see the passages the agent would use';
export const NO_PASSAGES = 'No passages match this question.';
export const SEARCH_FALLBACK_ERROR = 'Failed to search the documents. Please try again.';
export const NONE_RELEVANT =
  'None of these passages is relevant enough: the agent would answer that its documents do not cover this question.';
export const NOT_USED = 'Not used: too little of the question matches';

/**
 * The Test retrieval box (issue 13): a question → the passages the agent would use, each with its
 * document (a link to the Google Doc), labels, score, the passage's heading path and text. Client rules mirror the service's
 * (non-empty, at most 1,000 characters); a refused or failed search shows the service's message.
 */
export function TestRetrieval({ agentId }: { agentId: string }) {
  const search = useKnowledgeSearch(agentId);
  const base = `test-retrieval-${useId()}`;
  const inputId = `${base}-input`;
  const labelId = `${base}-label`;
  const hintId = `${base}-hint`;
  const errorId = `${inputId}-error`;
  const {
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<RetrievalValues>({ resolver: zodResolver(schema), defaultValues: { query: '' } });
  const fieldError = errors.query?.message;

  const onSubmit = handleSubmit(({ query }) => {
    search.mutate({ query: query.trim() });
  });

  const passages = search.data?.passages;
  const mode = search.isSuccess ? search.data.mode : null;
  // Older servers do not say; their passages were all used.
  const noneRelevant = !!passages && passages.length > 0 && passages.every((p) => p.relevant === false);
  const summary = search.isPending
    ? 'Searching...'
    : search.isSuccess && passages
      ? passages.length === 0
        ? NO_PASSAGES
        : `${passages.length} ${passages.length === 1 ? 'passage' : 'passages'} for “${search.variables?.query ?? ''}”`
      : '';

  return (
    <section className="retrieval">
      <form role="search" className="retrieval__form" noValidate onSubmit={onSubmit}>
        <label id={labelId} htmlFor={inputId} className="retrieval__label">
          Test retrieval
        </label>
        <p id={hintId} className="documents-muted retrieval__hint">
          See which passages of the linked documents the agent would use to answer a question.
        </p>
        <div className="documents-inline-form">
          <Controller
            control={control}
            name="query"
            render={({ field }) => (
              <Input
                {...field}
                id={inputId}
                placeholder={RETRIEVAL_PLACEHOLDER}
                autoComplete="off"
                aria-invalid={fieldError ? true : undefined}
                aria-describedby={fieldError ? `${errorId} ${hintId}` : hintId}
                status={fieldError ? 'error' : undefined}
              />
            )}
          />
          <Button htmlType="submit" icon={<SearchOutlined aria-hidden="true" />} loading={search.isPending}>
            {search.isPending ? 'Searching...' : 'Search'}
          </Button>
        </div>
        {fieldError && (
          <p id={errorId} className="form-field__error">
            {fieldError}
          </p>
        )}
      </form>

      <p role="status" className={summary === NO_PASSAGES ? 'retrieval__empty' : 'documents-muted retrieval__summary'}>
        {summary}
      </p>
      {mode && (
        <p className="documents-muted retrieval__mode" data-testid="retrieval-mode">
          {modeText(mode)}
        </p>
      )}
      {search.isSuccess && noneRelevant && (
        <p className="documents-muted retrieval__none-relevant" data-testid="retrieval-none-relevant">
          {NONE_RELEVANT}
        </p>
      )}
      {search.isError && (
        <p role="alert" className="documents-error">
          {errorDescription(search.error, SEARCH_FALLBACK_ERROR)}
        </p>
      )}
      {search.isSuccess && passages && passages.length > 0 && (
        <ol className="retrieval__results" aria-label="Retrieved passages">
          {passages.map((passage, index) => (
            <Passage key={`${search.submittedAt}-${index}`} passage={passage} id={`${base}-passage-${index}`} />
          ))}
        </ol>
      )}
    </section>
  );
}

/** What the search ran on, in words (issue 32: "No provider configured: lexical only, said in Test retrieval"). */
export function modeText(mode: RetrievalMode): string {
  switch (mode.mode) {
    case 'lexical':
      return 'Lexical search only: no embeddings provider is configured.';
    case 'fallback':
      return 'The embeddings provider did not answer: this search was lexical only.';
    default:
      return mode.simulated
        ? `Semantic and lexical search (${mode.model}; simulated embeddings, not semantic).`
        : `Semantic and lexical search (${mode.model}).`;
  }
}

function formatScore(score: number): string {
  return typeof score === 'number' && Number.isFinite(score) ? score.toFixed(2) : '—';
}

function Passage({ passage, id }: { passage: KnowledgePassage; id: string }) {
  const [expanded, setExpanded] = useState(false);
  const preview = passagePreview(passage.text);
  const textId = `${id}-text`;
  return (
    <li className="retrieval-passage" aria-labelledby={`${id}-title`}>
      <div className="retrieval-passage__header">
        <span id={`${id}-title`} className="retrieval-passage__title">
          {passage.url ? (
            <a href={passage.url} target="_blank" rel="noopener noreferrer" className="documents-table__link">
              {passage.documentName}
              <ExportOutlined aria-hidden="true" className="documents-table__external" />
            </a>
          ) : (
            passage.documentName
          )}
        </span>
        {passage.labels.length > 0 && (
          <span className="documents-labels">
            <span className="sr-only">Labels:</span>
            {passage.labels.map((label) => (
              <span key={label} className="documents-badge documents-badge--gray">
                {label}
              </span>
            ))}
          </span>
        )}
        {passage.relevant === false && (
          <span className="documents-badge documents-badge--gray" data-testid="passage-not-used">
            {NOT_USED}
          </span>
        )}
        <span className="retrieval-passage__score" data-testid="passage-score">
          Score {formatScore(passage.score)}
        </span>
      </div>
      {passage.headingPath && (
        <p className="retrieval-passage__path" data-testid="passage-heading-path">
          <span className="sr-only">Section: </span>
          {passage.headingPath}
        </p>
      )}
      <p id={textId} className="retrieval-passage__text" data-testid="passage-text">
        {preview && !expanded ? preview : passage.text}
      </p>
      {preview && (
        <Button
          type="link"
          size="small"
          className="retrieval-passage__toggle"
          aria-expanded={expanded}
          aria-controls={textId}
          onClick={() => setExpanded((value) => !value)}
        >
          {expanded ? 'Show less' : 'Show more'}
        </Button>
      )}
    </li>
  );
}
