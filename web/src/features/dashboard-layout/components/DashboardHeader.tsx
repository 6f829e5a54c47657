import { CloseOutlined, MenuOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { AccountMenu } from './AccountMenu';

export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Dashboard', end: true },
  { to: '/dashboard/agentic-users', label: 'Your Agentic Users', end: false },
  { to: '/dashboard/shared', label: 'Shared with me', end: false },
  { to: '/dashboard/marketplace', label: 'Marketplace', end: false },
  { to: '/dashboard/wallet', label: 'Wallet', end: false },
] as const;

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
            {NAV_ITEMS.map((item) => (
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
