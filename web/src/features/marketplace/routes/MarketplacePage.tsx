import {
  BellOutlined,
  CheckCircleFilled,
  CommentOutlined,
  DatabaseOutlined,
  MessageOutlined,
  PercentageOutlined,
  SearchOutlined,
  StarOutlined,
  ThunderboltOutlined,
} from '@ant-design/icons';
import { Button } from 'antd';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { useMarketplaceSwitch } from '../api/use-marketplace-enabled';
import { useRegisterMarketplaceInterest } from '../api/use-register-interest';
import { MarketplaceBrowser } from '../components/MarketplaceBrowser';
import { MARKETPLACE_LEAD } from '../lib/texts';
import './marketplace.css';
import './marketplace-pages.css';

/** The six coming features (spec §2 "Marketplace page"), as short labels. */
export const MARKETPLACE_FEATURES = [
  { label: 'Browse expert agents', icon: <SearchOutlined /> },
  { label: 'Rate and review agents', icon: <StarOutlined /> },
  { label: 'Use agents without commitment', icon: <ThunderboltOutlined /> },
  { label: 'Tokens kept in memory', icon: <DatabaseOutlined /> },
  { label: 'Creators set their markup', icon: <PercentageOutlined /> },
  { label: 'Clear greeting cost', icon: <MessageOutlined /> },
] as const;

export const INTEREST_RECORDED_TEXT = "Your interest has been recorded. We'll notify you!";

/**
 * /dashboard/marketplace: the marketplace itself while it is open (issue 27, the launch switch on); otherwise
 * the spec's teaser with interest registration. A short spinner while the switch is asked.
 */
export function MarketplacePage() {
  usePageTitle('Marketplace');
  const { enabled, known } = useMarketplaceSwitch();
  if (!known) return <LoadingSpinner fullPage={false} />;
  if (enabled) {
    return (
      <section className="page mp-page" aria-labelledby="marketplace-title">
        <h1 id="marketplace-title" className="page__title">
          Marketplace
        </h1>
        <p className="page__lead">{MARKETPLACE_LEAD}</p>
        <MarketplaceBrowser />
      </section>
    );
  }
  return <MarketplaceTeaser />;
}

/** The spec's "Marketplace page": Marketplace Coming Soon, the feature chips and Notify Me When Available. */
function MarketplaceTeaser() {
  const { user, error } = useAuth();
  const register = useRegisterMarketplaceInterest();
  // The flag comes from the onboarding response; right after a successful call it is being refreshed.
  const recorded = user?.interestedInPublicAgents === true || register.isSuccess;

  return (
    <section className="page marketplace" aria-labelledby="marketplace-title">
      <div className="marketplace__card">
        <span className="marketplace__icon" aria-hidden="true">
          <CommentOutlined />
        </span>
        <h1 id="marketplace-title" className="page__title">
          Marketplace Coming Soon
        </h1>
        <p className="page__lead marketplace__lead">
          Soon you will discover and use Agentic Users published by experts, and publish your own. Here is what is
          coming:
        </p>
        <ul className="marketplace__chips" aria-label="Coming features">
          {MARKETPLACE_FEATURES.map((feature) => (
            <li key={feature.label} className="marketplace__chip">
              <span aria-hidden="true">{feature.icon}</span>
              {feature.label}
            </li>
          ))}
        </ul>
        {error ? (
          <p role="alert" className="user-data-error">
            Error loading user data: {error.message}
          </p>
        ) : recorded ? (
          <p className="marketplace__recorded" role="status">
            <CheckCircleFilled aria-hidden="true" /> {INTEREST_RECORDED_TEXT}
          </p>
        ) : (
          <Button
            type="primary"
            size="large"
            icon={<BellOutlined aria-hidden="true" />}
            disabled={register.isPending}
            onClick={() => register.mutate()}
          >
            {register.isPending ? 'Registering Interest...' : 'Notify Me When Available'}
          </Button>
        )}
      </div>
    </section>
  );
}

export default MarketplacePage;
