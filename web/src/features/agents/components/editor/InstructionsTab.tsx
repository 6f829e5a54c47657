import { InstructionsAndDocuments } from '@/features/documents';

interface InstructionsTabProps {
  agentId: string;
  /** The agent's e-mail address, shown in the note about sharing documents. */
  agentEmail?: string;
  value: string;
  onChange: (value: string) => void;
}

/**
 * The 'Instructions & Documents' tab: the agent's documents (features/documents) and the
 * instructions editor. `value` is the editor's draft, which Save Changes PATCHes.
 */
export function InstructionsTab({ agentId, agentEmail, value, onChange }: InstructionsTabProps) {
  return (
    <InstructionsAndDocuments
      agentId={agentId}
      agentEmail={agentEmail}
      instructions={value}
      onInstructionsChange={onChange}
    />
  );
}
