import { LogoutOutlined, SettingOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Dropdown, type MenuProps } from 'antd';
import { useNavigate } from 'react-router';
import { useAuth } from '@/features/auth';
import { getDisplayLabel, getInitials } from '../lib/user-display';

/** Avatar + label button ("{initials} {label}, Account menu") opening 'My Account': 'Account' / 'Log out'. */
export function AccountMenu() {
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const label = getDisplayLabel(user);

  const items: MenuProps['items'] = [
    {
      type: 'group',
      key: 'my-account',
      label: 'My Account',
      children: [
        {
          key: 'account',
          label: 'Account',
          icon: <SettingOutlined aria-hidden="true" />,
          disabled: !user,
        },
        {
          key: 'logout',
          label: 'Log out',
          icon: <LogoutOutlined aria-hidden="true" />,
          disabled: !user,
        },
      ],
    },
  ];

  const onClick: MenuProps['onClick'] = async ({ key }) => {
    if (key === 'account') {
      navigate('/dashboard/account');
      return;
    }
    if (key !== 'logout') return;
    try {
      await logout();
      navigate('/auth', { replace: true });
    } catch {
      // 'Logout failed' toast already shown by the provider.
    }
  };

  const initials = user ? getInitials(user) : null;
  // WCAG 2.5.3 (axe label-content-name-mismatch): the name starts with the visible text (initials and
  // label, separated by a real space so they do not read as one word), then says what the button is.
  const name = `${initials ? `${initials} ` : ''}${label}, Account menu`;

  return (
    <Dropdown menu={{ items, onClick }} trigger={['click']} placement="bottomRight">
      <button type="button" className="account-trigger" aria-label={name} aria-haspopup="menu">
        <Avatar size={32} className="account-trigger__avatar" aria-hidden="true" icon={user ? undefined : <UserOutlined />}>
          {initials}
        </Avatar>{' '}
        <span className="account-trigger__label" data-testid="account-label">
          {label}
        </span>
      </button>
    </Dropdown>
  );
}
