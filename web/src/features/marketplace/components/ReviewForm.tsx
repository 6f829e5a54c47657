import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Input } from 'antd';
import { useId, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { toast } from '@/components/toast';
import { fieldError } from '@/features/agents';
import { returnToState, useAuth } from '@/features/auth';
import { isNotFound, useDeleteReview, useSaveReview } from '../api/marketplace';
import { StarIcon } from './RatingStars';
import { MAX_REVIEW_LENGTH, reviewSchema, type ReviewFormInput, type ReviewFormValues } from '../lib/review-schema';

export const REVIEW_FORM_TEXTS = {
  heading: 'Your review',
  rating: 'Your rating',
  text: 'Your review (optional)',
  submit: 'Post review',
  submitting: 'Posting...',
  delete: 'Delete my review',
  deleting: 'Deleting...',
  savedTitle: 'Review saved',
  savedText: 'Thank you for your review.',
  deletedTitle: 'Review deleted',
  deletedText: 'Your review of this agent was removed.',
  noReview: 'You have not reviewed this agent.',
  signIn: 'Sign in to review this agent',
  hint: 'Anyone who got an answer from this agent can rate it. Posting again replaces your review.',
  failed: 'Failed to save your review.',
} as const;

const STARS = [1, 2, 3, 4, 5] as const;

/**
 * The signed-in visitor's review: 1–5 stars and up to 2,000 characters, PUT …/review (which creates or replaces
 * it), and Delete my review (DELETE …/review). The server's refusals (403 review_requires_answer, 403 forbidden
 * for the owner, 429) are shown as it words them; field messages at their fields.
 */
export function ReviewForm({ slug }: { slug: string }) {
  const { user, loading } = useAuth();
  const id = useId();
  if (loading) return null;
  if (!user) {
    return (
      <p className="mp-review-signin">
        <Link to="/auth" state={returnToState(`/marketplace/${slug}`)}>
          {REVIEW_FORM_TEXTS.signIn}
        </Link>
      </p>
    );
  }
  return <SignedInReviewForm slug={slug} id={id} />;
}

function SignedInReviewForm({ slug, id }: { slug: string; id: string }) {
  const save = useSaveReview(slug);
  const remove = useDeleteReview(slug);
  const [notice, setNotice] = useState('');
  const {
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = useForm<ReviewFormInput, unknown, ReviewFormValues>({
    resolver: zodResolver(reviewSchema),
    defaultValues: { rating: null, text: '' },
  });

  const onSubmit = handleSubmit((values) => {
    setNotice('');
    remove.reset();
    save.mutate(
      { rating: values.rating, text: values.text.trim() },
      {
        onSuccess: () => toast({ title: REVIEW_FORM_TEXTS.savedTitle, description: REVIEW_FORM_TEXTS.savedText }),
        onError: (error) => {
          for (const field of ['rating', 'text'] as const) {
            const message = fieldError(error, field);
            if (message) setError(field, { type: 'server', message });
          }
        },
      },
    );
  });

  const onDelete = () => {
    setNotice('');
    save.reset();
    remove.mutate(undefined, {
      onSuccess: () => {
        reset({ rating: null, text: '' });
        toast({ title: REVIEW_FORM_TEXTS.deletedTitle, description: REVIEW_FORM_TEXTS.deletedText });
      },
      onError: (error) => {
        if (isNotFound(error)) setNotice(REVIEW_FORM_TEXTS.noReview);
      },
    });
  };

  const saveError =
    save.isError && !fieldError(save.error, 'rating') && !fieldError(save.error, 'text')
      ? save.error.message || REVIEW_FORM_TEXTS.failed
      : '';
  const deleteError = remove.isError && !isNotFound(remove.error) ? remove.error.message : '';
  const ratingError = errors.rating?.message;
  const textError = errors.text?.message;
  const pending = save.isPending || remove.isPending;

  return (
    <form className="mp-form mp-review-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`} className="mp-subtitle">
        {REVIEW_FORM_TEXTS.heading}
      </h3>
      <p className="mp-muted">{REVIEW_FORM_TEXTS.hint}</p>
      <Controller
        control={control}
        name="rating"
        render={({ field }) => (
          <fieldset
            className="mp-rate"
            aria-invalid={ratingError ? true : undefined}
            aria-describedby={ratingError ? `${id}-rating-error` : undefined}
          >
            <legend className="form-field__label">{REVIEW_FORM_TEXTS.rating}</legend>
            <div className="mp-rate__stars">
              {STARS.map((n) => (
                <label key={n} className={`mp-rate__star${field.value !== null && n <= field.value ? ' mp-rate__star--on' : ''}`}>
                  <input
                    type="radio"
                    name={`${id}-rating`}
                    value={n}
                    checked={field.value === n}
                    onChange={() => field.onChange(n)}
                    onBlur={field.onBlur}
                    ref={n === 1 ? field.ref : undefined}
                    className="sr-only"
                  />
                  <StarIcon />
                  <span className="sr-only">{n === 1 ? '1 star' : `${n} stars`}</span>
                </label>
              ))}
            </div>
            {ratingError && (
              <p id={`${id}-rating-error`} className="form-field__error">
                {ratingError}
              </p>
            )}
          </fieldset>
        )}
      />
      <Controller
        control={control}
        name="text"
        render={({ field }) => (
          <div className="form-field">
            <label htmlFor={`${id}-text`} className="form-field__label">
              {REVIEW_FORM_TEXTS.text}
            </label>
            <Input.TextArea
              {...field}
              id={`${id}-text`}
              rows={4}
              maxLength={MAX_REVIEW_LENGTH}
              showCount
              status={textError ? 'error' : undefined}
              aria-invalid={textError ? true : undefined}
              aria-describedby={textError ? `${id}-text-error` : undefined}
            />
            {textError && (
              <p id={`${id}-text-error`} className="form-field__error">
                {textError}
              </p>
            )}
          </div>
        )}
      />
      {saveError && <Alert type="error" showIcon title={saveError} />}
      {deleteError && <Alert type="error" showIcon title={deleteError} />}
      {notice && (
        <p role="status" className="mp-muted">
          {notice}
        </p>
      )}
      <div className="mp-form__actions mp-form__actions--start">
        <Button type="primary" htmlType="submit" disabled={pending}>
          {save.isPending ? REVIEW_FORM_TEXTS.submitting : REVIEW_FORM_TEXTS.submit}
        </Button>
        <Button onClick={onDelete} disabled={pending}>
          {remove.isPending ? REVIEW_FORM_TEXTS.deleting : REVIEW_FORM_TEXTS.delete}
        </Button>
      </div>
    </form>
  );
}
