import { Outlet } from 'react-router';
import { EmailVerificationBanner } from '@/features/auth';
import { DashboardHeader } from './components/DashboardHeader';
import './dashboard-layout.css';

export function DashboardLayout() {
  return (
    <div className="app-shell">
      <a href="#main-content" className="skip-link">
        Skip to main content
      </a>
      <DashboardHeader />
      <main id="main-content" className="app-main" tabIndex={-1}>
        <EmailVerificationBanner />
        <Outlet />
      </main>
    </div>
  );
}

export default DashboardLayout;
