import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from '@/components/toast';
import { AGENTS_QUERY_KEY, fetchAgents } from '@/features/agents';
import { useAuth } from '@/features/auth';
import { flattenPages, useDeleteReply, useReviews } from '../api/marketplace';
import { formatDate, wasEdited } from '../lib/dates';
import { REVIEW_SORT_OPTIONS } from '../lib/filters';
import { ratingLabel, ratingText } from '../lib/format';
import type { Rating, Review, ReviewSort } from '../types';
import { RatingStars } from './RatingStars';
import { REPLY_TEXTS, ReplyForm } from './ReplyForm';
import { ReportButton } from './ReportButton';
import { ReviewForm } from './ReviewForm';

export const REVIEWS_TEXTS = {
  heading: 'Ratings and reviews',
  sort: 'Sort reviews',
  empty: 'No reviews yet.',
  loading: 'Loading reviews',
  more: 'Show more reviews',
  loadingMore: 'Loading more reviews...',
  failed: 'Could not load the reviews.',
  reply: 'Reply from the creator',
  edited: 'edited',
} as const;

/**
 * Whether the signed-in user owns the agent: the profile does not say (it never exposes the owner), so the
 * caller's own agents list (GET /api/agents, the agents page's cache entry) is asked. False while unknown.
 */
function useOwnsAgent(agentId: string): boolean {
  const { user } = useAuth();
  const mine = useQuery({
    queryKey: AGENTS_QUERY_KEY,
    queryFn: ({ signal }) => fetchAgents(signal),
    enabled: Boolean(user) && Boolean(agentId),
    staleTime: 60_000,
  });
  return Boolean(user) && (mine.data?.some((a) => a.id === agentId) ?? false);
}

/**
 * The profile's reviews: the rating summary, the signed-in visitor's review form, and the reviews (sortable,
 * paged). The agent's owner may reply to each review once, edit or remove the reply.
 */
export function ReviewsSection({ slug, rating, agentId = '' }: { slug: string; rating: Rating; agentId?: string }) {
  const id = useId();
  const [sort, setSort] = useState<ReviewSort>('newest');
  const reviews = useReviews(slug, sort);
  const items = flattenPages(reviews.data);
  const { user } = useAuth();
  const owner = useOwnsAgent(agentId);

  let list;
  if (reviews.isPending) {
    list = <p role="status" className="mp-muted">{`${REVIEWS_TEXTS.loading}...`}</p>;
  } else if (reviews.isError && items.length === 0) {
    list = (
      <Alert
        type="error"
        showIcon
        title={REVIEWS_TEXTS.failed}
        description={reviews.error.message}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void reviews.refetch()}>
            Try again
          </Button>
        }
      />
    );
  } else if (items.length === 0) {
    list = <p className="mp-muted">{REVIEWS_TEXTS.empty}</p>;
  } else {
    list = (
      <>
        <ul className="mp-reviews" aria-label="Reviews">
          {items.map((review) => (
            <li key={review.id}>
              <ReviewItem review={review} canReport={Boolean(user)} reply={owner ? { agentId, slug } : undefined} />
            </li>
          ))}
        </ul>
        {reviews.hasNextPage && (
          <Button onClick={() => void reviews.fetchNextPage()} disabled={reviews.isFetchingNextPage}>
            {reviews.isFetchingNextPage ? REVIEWS_TEXTS.loadingMore : REVIEWS_TEXTS.more}
          </Button>
        )}
      </>
    );
  }

  return (
    <section className="mp-section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="mp-section__title">
        {REVIEWS_TEXTS.heading}
      </h2>
      <p className="mp-rating-summary">
        <RatingStars value={rating.count ? rating.average : 0} label={ratingLabel(rating)} size="medium" />
        <span aria-hidden="true">{ratingText(rating)}</span>
      </p>
      <ReviewForm slug={slug} />
      <div className="mp-reviews__toolbar">
        <label htmlFor={`${id}-sort`} className="mp-filters__label">
          {REVIEWS_TEXTS.sort}
        </label>
        <select id={`${id}-sort`} className="mp-select" value={sort} onChange={(e) => setSort(e.target.value as ReviewSort)}>
          {REVIEW_SORT_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {list}
    </section>
  );
}

function ReviewItem({
  review,
  canReport,
  reply,
}: {
  review: Review;
  canReport: boolean;
  /** Set for the agent's owner: they may reply. */
  reply?: { agentId: string; slug: string };
}) {
  const author = review.authorName || 'A user';
  return (
    <article className="mp-review" aria-label={`Review by ${author}`}>
      <p className="mp-review__head">
        <RatingStars value={review.rating} label={`${review.rating} out of 5 stars`} />
        <strong className="mp-review__author">{author}</strong>
        <span className="mp-muted">
          <time dateTime={review.createdAt}>{formatDate(review.createdAt)}</time>
          {wasEdited(review.createdAt, review.updatedAt) && ` (${REVIEWS_TEXTS.edited})`}
        </span>
      </p>
      {review.text && <p className="mp-review__text">{review.text}</p>}
      {review.reply && (
        <div className="mp-reply">
          <p className="mp-reply__title">{REVIEWS_TEXTS.reply}</p>
          <p className="mp-review__text">{review.reply.text}</p>
        </div>
      )}
      {reply && <OwnerReply review={review} author={author} agentId={reply.agentId} slug={reply.slug} />}
      {canReport && (
        <ReportButton
          target={{ kind: 'review', reviewId: review.id }}
          label={`Report review by ${author}`}
          title="Report a review"
        />
      )}
    </article>
  );
}

/** The owner's controls under a review: Reply (no reply yet), or Edit reply / Remove reply; the form in place. */
function OwnerReply({ review, author, agentId, slug }: { review: Review; author: string; agentId: string; slug: string }) {
  const [editing, setEditing] = useState(false);
  const remove = useDeleteReply(agentId, slug);

  if (editing) {
    return (
      <ReplyForm
        agentId={agentId}
        slug={slug}
        reviewId={review.id}
        author={author}
        initialText={review.reply?.text ?? ''}
        onDone={() => setEditing(false)}
      />
    );
  }

  const onRemove = () =>
    remove.mutate(review.id, {
      onSuccess: () => toast({ title: REPLY_TEXTS.removedTitle, description: REPLY_TEXTS.removedText }),
    });

  return (
    <div className="mp-reply-actions">
      {review.reply ? (
        <>
          <Button size="small" onClick={() => setEditing(true)} aria-label={REPLY_TEXTS.editFor(author)}>
            {REPLY_TEXTS.edit}
          </Button>
          <Button size="small" onClick={onRemove} disabled={remove.isPending} aria-label={REPLY_TEXTS.removeFor(author)}>
            {remove.isPending ? REPLY_TEXTS.removing : REPLY_TEXTS.remove}
          </Button>
        </>
      ) : (
        <Button size="small" onClick={() => setEditing(true)} aria-label={REPLY_TEXTS.replyTo(author)}>
          {REPLY_TEXTS.reply}
        </Button>
      )}
      {remove.isError && (
        <Alert type="error" showIcon className="mp-reply-actions__error" title={remove.error.message || REPLY_TEXTS.removeFailed} />
      )}
    </div>
  );
}
