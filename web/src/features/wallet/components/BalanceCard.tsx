import { ReloadOutlined } from '@ant-design/icons';
import { Button, Spin } from 'antd';
import { useState } from 'react';
import { formatMoney } from '../lib/format';

export function BalanceCard({ balance, onRefresh }: { balance: number | null; onRefresh: () => Promise<void> }) {
  const [refreshing, setRefreshing] = useState(false);
  const refresh = async () => {
    setRefreshing(true);
    try {
      await onRefresh();
    } finally {
      setRefreshing(false);
    }
  };
  return (
    <section className="wallet-card" aria-labelledby="wallet-balance-title">
      <header className="wallet-card__header">
        <h2 id="wallet-balance-title" className="wallet-card__title">
          Current Balance
        </h2>
        <Button
          onClick={() => void refresh()}
          icon={<ReloadOutlined spin={refreshing} aria-hidden="true" />}
          aria-busy={refreshing}
        >
          Refresh
        </Button>
      </header>
      <p className="wallet-balance" data-testid="wallet-balance" aria-live="polite" aria-busy={balance === null}>
        {balance === null ? <Spin size="small" aria-label="Loading balance" /> : formatMoney(balance)}
      </p>
    </section>
  );
}
