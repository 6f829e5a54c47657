import type { IconName } from './components/Icon';

/** Texts and constants of the landing page (spec §1, §2 "Landing page (/)", §9 pricing). */

/** Same as <title> in web/index.html (the served HTML crawlers read). */
export const LANDING_TITLE = 'Agentic: Turn Your Expertise into an AI Agent';

export const CONTACT_EMAIL = 'hello@agentic.app';
export const CONTACT_SUBJECT = 'Agentic inquiry';
export const CONTACT_HREF = `mailto:${CONTACT_EMAIL}?subject=${encodeURIComponent(CONTACT_SUBJECT)}`;

/** Where the waitlist dialog's Create Account button leads (AuthPage registers the interest). */
export const MARKETPLACE_INTEREST_HREF = '/auth?interest=marketplace';

export const NAV_LINKS = [
  { href: '#features', label: 'Benefits' },
  { href: '#how-it-works', label: 'How It Works' },
  { href: '#pricing', label: 'Pricing' },
  { href: '#use-cases', label: 'Use Cases' },
] as const;

interface Card {
  icon: IconName;
  title: string;
  text: string;
  comingSoon?: boolean;
  /** The text once the marketplace is open (issue 27), when it differs. */
  liveText?: string;
}

export const STEPS: Card[] = [
  {
    icon: 'robot',
    title: 'Create Your Agent',
    text: 'Write instructions and link your documents as its knowledge: a digital twin of your expertise.',
  },
  {
    icon: 'mail',
    title: 'Get a Unique E-mail',
    text: 'Every agent gets its own e-mail address and acts like a real user.',
  },
  {
    icon: 'share',
    title: 'Share and Collaborate',
    text: 'Add the address to a shared Google Docs document to work with your agent. Support for two more document tools is coming soon.',
  },
  {
    icon: 'lock',
    title: 'Control Access or Monetize',
    text: 'Keep it private with exclusive access control, or publish it to the marketplace (coming soon).',
    liveText: 'Keep it private with exclusive access control, or publish it to the marketplace.',
  },
];

export const BENEFITS: Card[] = [
  {
    icon: 'lightbulb',
    title: 'Effortless Knowledge Sharing',
    text: 'Your agent answers with your knowledge whenever people need it, without you repeating yourself.',
  },
  {
    icon: 'team',
    title: 'Seamless Collaboration',
    text: 'Your agent works where your team works: add its e-mail address to a shared document, like a colleague.',
  },
  {
    icon: 'money',
    title: 'New Revenue Streams',
    text: 'Publish your agent to the marketplace and earn a markup on every interaction.',
    comingSoon: true,
  },
];

export const USE_CASES: Card[] = [
  {
    icon: 'graduationCap',
    title: 'University Professors',
    text: 'A digital tutor that helps students with their assignments, available around the clock.',
  },
  {
    icon: 'shieldCheck',
    title: 'Compliance Experts',
    text: 'Documents written to specific ISO standards, drafted by an agent that knows them.',
  },
  {
    icon: 'fileText',
    title: 'Technical Writers',
    text: 'Documentation produced by an agent trained on your product knowledge.',
  },
];

export const PRIVATE_PLAN = {
  title: 'Private Agent',
  price: '$10',
  period: '/month per agent',
  summary: 'For controlled sharing: you alone decide who can use your agent.',
  features: [
    'Plus pay-as-you-go interaction costs',
    'Usage costs are deducted from your wallet',
    'Exclusive access control by the owner',
    '3% service fee added to base costs',
  ],
};

export const PUBLIC_PLAN = {
  title: 'Public Marketplace Agent',
  price: '$10',
  period: '/month to keep it active',
  summary: 'For reaching everyone: publish your agent to the marketplace.',
  features: [
    'Users pay for interactions from their own wallets',
    'You set a markup percentage on interaction costs',
    '3% service fee added to base costs',
  ],
};

/** The marketplace's launch (issue 27): what the landing page says and links to once it is open. */
export const MARKETPLACE_LIVE = {
  browse: 'Browse the Marketplace',
  browseHref: '/marketplace',
  publish: 'Publish an Agent',
  /** Where Publish an Agent leads a signed-in visitor (anyone else goes to /auth). */
  publishHref: '/dashboard/agentic-users',
  consumerText: 'Use agents built by experts whenever you need them and pay only for what you use, from your own wallet.',
} as const;

export function copyright(year = new Date().getFullYear()) {
  return `© ${year} Agentic. All rights reserved.`;
}
