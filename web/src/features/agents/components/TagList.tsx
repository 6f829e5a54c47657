import { visibleTags } from '../lib/tags';
import { Badge } from './Badge';

/** The list's Tags column: the first two tags, then a +N badge for the rest (spec §9). */
export function TagList({ tags }: { tags: readonly string[] | null | undefined }) {
  const { shown, hidden } = visibleTags(tags);
  if (!shown.length) return <span className="agents-muted">—</span>;
  return (
    <span className="agent-tags">
      {shown.map((tag) => (
        <Badge key={tag}>{tag}</Badge>
      ))}
      {hidden > 0 && (
        <span
          className="agent-badge agent-badge--outline"
          data-color="gray"
          title={(tags ?? []).slice(shown.length).join(', ')}
        >
          +{hidden}
        </span>
      )}
    </span>
  );
}
