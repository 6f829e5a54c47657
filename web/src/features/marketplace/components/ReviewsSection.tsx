import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button } from 'antd';
import { useId, useState } from 'react';
import { useAuth } from '@/features/auth';
import { flattenPages, useReviews } from '../api/marketplace';
import { formatDate, wasEdited } from '../lib/dates';
import { REVIEW_SORT_OPTIONS } from '../lib/filters';
import { ratingLabel, ratingText } from '../lib/format';
import type { Rating, Review, ReviewSort } from '../types';
import { RatingStars } from './RatingStars';
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

/** The profile's reviews: the rating summary, the signed-in visitor's review form, and the reviews (sortable, paged). */
export function ReviewsSection({ slug, rating }: { slug: string; rating: Rating }) {
  const id = useId();
  const [sort, setSort] = useState<ReviewSort>('newest');
  const reviews = useReviews(slug, sort);
  const items = flattenPages(reviews.data);
  const { user } = useAuth();

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
              <ReviewItem review={review} canReport={Boolean(user)} />
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

function ReviewItem({ review, canReport }: { review: Review; canReport: boolean }) {
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
