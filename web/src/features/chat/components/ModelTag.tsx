import { ExperimentOutlined, RobotOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { modelLabel } from '../lib/format';

/**
 * Names the model the agent answers with. The simulator gets a distinct orange tag,
 * "Simulated model (agentic-sim)", so a simulated answer is never taken for a real model's.
 */
export function ModelTag({ model, simulated }: { model?: string; simulated?: boolean }) {
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
    >
      {modelLabel(model, !!simulated)}
    </Tag>
  );
}
