import { PlusOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { AgentIcon } from './AgentIcon';

export function AgentsEmptyState({ onCreate }: { onCreate: () => void }) {
  return (
    <div className="agents-empty">
      <AgentIcon size="large" />
      <h2 className="agents-empty__title">No Agentic Users Yet</h2>
      <p className="agents-empty__text">Create your first agentic user to get started</p>
      <Button type="primary" icon={<PlusOutlined aria-hidden="true" />} onClick={onCreate}>
        Create New Agent
      </Button>
    </div>
  );
}
