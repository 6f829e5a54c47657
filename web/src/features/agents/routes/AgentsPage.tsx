import { usePageTitle } from '@/components/usePageTitle';

/** Agent list placeholder (a later issue builds the list, search and editor). */
export function AgentsPage() {
  usePageTitle('Your Agentic Users');
  return (
    <section className="page">
      <h1 className="page__title">Your Agentic Users</h1>
      <p className="page__lead">Create and manage the AI agents built from your expertise.</p>
    </section>
  );
}

export default AgentsPage;
