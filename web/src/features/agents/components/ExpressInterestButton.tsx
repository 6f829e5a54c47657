import { Button } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { toast } from '@/components/toast';
import { registerPublicAgentInterest, toastMessage } from '../api/agents';

/**
 * 'Express Interest' link for public agents. The create dialog sends the identity token in
 * the body (`withIdToken`), the editor sends no body (spec §7).
 */
export function ExpressInterestButton({ withIdToken }: { withIdToken: boolean }) {
  const mutation = useMutation({
    mutationFn: () => registerPublicAgentInterest({ withIdToken }),
    onSuccess: () => {
      toast({ title: 'Interest Registered', description: "We'll notify you when public agents are available!" });
    },
    onError: (error) => {
      console.error('Failed to register interest:', error);
      toast({ title: 'Error', description: toastMessage(error, 'Failed to register interest.'), variant: 'destructive', error });
    },
  });
  return (
    <Button
      type="link"
      size="small"
      className="agents-link-button"
      onClick={() => mutation.mutate()}
      disabled={mutation.isPending}
    >
      Express Interest
    </Button>
  );
}
