import { DollarOutlined, MailOutlined, RobotOutlined } from '@ant-design/icons';

const BENEFITS = [
  {
    icon: RobotOutlined,
    title: 'A digital twin of your expertise',
    text: 'Write instructions and link your documents as knowledge; your agent answers the way you would.',
  },
  {
    icon: MailOutlined,
    title: 'Its own e-mail address',
    text: 'Each agent acts like a real user: add it to a shared Google Docs document to collaborate.',
  },
  {
    icon: DollarOutlined,
    title: 'Private today, marketplace soon',
    text: 'Keep agents private with exclusive access control, fund usage from a pay-as-you-go wallet.',
  },
];

/** The marketing panel shown beside the forms on large screens only (≥ 1024px, see auth.css). */
export function MarketingPanel() {
  return (
    <aside className="auth-marketing" aria-labelledby="auth-marketing-title">
      <h2 id="auth-marketing-title" className="auth-marketing__title">
        Turn your knowledge into an AI agent
      </h2>
      <ul className="auth-marketing__list">
        {BENEFITS.map(({ icon: Icon, title, text }) => (
          <li key={title} className="auth-marketing__item">
            <Icon className="auth-marketing__icon" aria-hidden="true" />
            <div>
              <h3 className="auth-marketing__item-title">{title}</h3>
              <p className="auth-marketing__item-text">{text}</p>
            </div>
          </li>
        ))}
      </ul>
    </aside>
  );
}
