import { CloseOutlined, MenuOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { useHasListedAgent } from '@/features/earnings';
import { useMarketplaceEnabled } from '@/features/marketplace';
import { AccountMenu } from './AccountMenu';

export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Dashboard', end: true },
  { to: '/dashboard/agentic-users', label: 'Your Agentic Users', end: false },
  { to: '/dashboard/shared', label: 'Shared with me', end: false },
  { to: '/dashboard/marketplace', label: 'Marketplace', end: false },
  { to: '/dashboard/wallet', label: 'Wallet', end: false },
] as const;

/** Shown (before Wallet) only while the user has a listed marketplace agent; the page is reachable anyway. */
export const EARNINGS_NAV_ITEM = { to: '/dashboard/earnings', label: 'Earnings', end: false } as const;

/** Shown (after Shared with me) only while the marketplace is on: the agents the user chatted with there. */
export const LIBRARY_NAV_ITEM = { to: '/dashboard/library', label: 'Library', end: false } as const;

type NavItem = { to: string; label: string; end: boolean };

/**
 * The navigation's links: Library goes after Shared with me when `withLibrary` (the marketplace is on), Earnings
 * before Wallet when `withEarnings`.
 */
export function navItems(withEarnings: boolean, withLibrary = false): readonly NavItem[] {
  let items: readonly NavItem[] = NAV_ITEMS;
  if (withLibrary) {
    const shared = items.findIndex((item) => item.to === '/dashboard/shared');
    items = [...items.slice(0, shared + 1), LIBRARY_NAV_ITEM, ...items.slice(shared + 1)];
  }
  if (withEarnings) {
    const wallet = items.findIndex((item) => item.to === '/dashboard/wallet');
    items = [...items.slice(0, wallet), EARNINGS_NAV_ITEM, ...items.slice(wallet)];
  }
  return items;
}

/**
 * The dashboard header: logo → /dashboard, main navigation (the active link carries
 * aria-current="page"; Dashboard only on an exact match) and the account menu.
 * Below 768px the navigation collapses behind a toggle button.
 */
export function DashboardHeader() {
  const { pathname } = useLocation();
  // The path the mobile navigation was opened on: it closes by itself when the route changes.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const navOpen = openOn === pathname;
  const items = navItems(useHasListedAgent(), useMarketplaceEnabled());

  return (
    <header className="app-header">
      <div className="app-header__inner">
        <Link to="/dashboard" className="app-header__logo">
          <span className="app-header__logo-mark" aria-hidden="true">
            A
          </span>
          Agentic
        </Link>
        <button
          type="button"
          className="app-header__nav-toggle"
          aria-label="Navigation menu"
          aria-expanded={navOpen}
          aria-controls="main-navigation"
          onClick={() => setOpenOn(navOpen ? null : pathname)}
        >
          {navOpen ? <CloseOutlined aria-hidden="true" /> : <MenuOutlined aria-hidden="true" />}
        </button>
        <nav
          id="main-navigation"
          aria-label="Main"
          className={navOpen ? 'app-header__nav app-header__nav--open' : 'app-header__nav'}
        >
          <ul className="app-header__nav-list">
            {items.map((item) => (
              <li key={item.to}>
                <NavLink
                  to={item.to}
                  end={item.end}
                  className={({ isActive }) => (isActive ? 'nav-link nav-link--active' : 'nav-link')}
                >
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="app-header__account">
          <AccountMenu />
        </div>
      </div>
    </header>
  );
}
