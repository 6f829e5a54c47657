import { WarningOutlined } from '@ant-design/icons';

/** The not-found screen of spec §2. */
export function NotFound() {
  return (
    <main className="not-found">
      <div className="not-found__card">
        <WarningOutlined className="not-found__icon" aria-hidden="true" />
        <h1 className="not-found__title">404 Page Not Found</h1>
        <p className="not-found__text">Did you forget to add the page to the router?</p>
      </div>
    </main>
  );
}

export default NotFound;
