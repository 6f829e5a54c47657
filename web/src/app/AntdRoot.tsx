import { ConfigProvider } from 'antd';
import { Outlet } from 'react-router';
import { theme } from './theme';

/**
 * antd's ConfigProvider (theme) for every route except the landing page. It is a lazily loaded
 * layout route rather than a root provider so that `/` does not download and run antd's
 * CSS-in-JS core (~45 KB gzip): see docs/web-landing.md (bundle budget).
 */
export function AntdRoot() {
  return (
    <ConfigProvider theme={theme}>
      <Outlet />
    </ConfigProvider>
  );
}
