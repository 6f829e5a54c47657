import { ExperimentOutlined, RobotOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { modelLabel } from '../lib/format';

/** What the tag's tooltip says of follow-up questions (chat-info's followUpSearch). */
export const followUpSearchText = {
  model: 'Follow-up questions are rewritten by the model into a standalone search of the documents.',
  rule: "Follow-up questions are searched with your previous question's words: a fixed rule, not a model's reading.",
} as const;

/**
 * Names the model the agent answers with. The simulator gets a distinct orange tag,
 * "Simulated model (agentic-sim)", so a simulated answer is never taken for a real model's.
 * Its title says how follow-up questions are searched for.
 */
export function ModelTag({
  model,
  simulated,
  followUpSearch,
}: {
  model?: string;
  simulated?: boolean;
  followUpSearch?: keyof typeof followUpSearchText;
}) {
  if (!model) return null;
  return (
    <Tag
      color={simulated ? 'orange' : 'blue'}
      icon={simulated ? <ExperimentOutlined aria-hidden="true" /> : <RobotOutlined aria-hidden="true" />}
      // antd's orange-7 text on its orange-1 tint is 3.3:1; orange-8 is 5.1:1 (WCAG AA).
      style={simulated ? { color: '#ad4e00' } : undefined}
      className="chat-model-tag"
      data-testid="chat-model"
      data-simulated={simulated ? 'true' : 'false'}
      title={followUpSearch ? followUpSearchText[followUpSearch] : undefined}
    >
      {modelLabel(model, !!simulated)}
    </Tag>
  );
}
