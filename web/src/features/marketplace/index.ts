export { fetchMarketplaceProfile, profileKey } from './api/marketplace';
export { useMarketplaceEnabled, useMarketplaceSwitch } from './api/use-marketplace-enabled';
export { formatDate } from './lib/dates';
export { ratingText } from './lib/format';
