import { DownloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Input, Select } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { toast } from '@/components/toast';
import { BILLING_MESSAGES, downloadTransactionsCsv } from '../api/billing';
import { SCROLL_THRESHOLD_PX, TABLE_MAX_HEIGHT_PX } from '../lib/constants';
import { filterTransactions, TRANSACTION_FILTER_OPTIONS } from '../lib/filter';
import {
  formatDescription,
  formatTransactionAmount,
  formatTransactionDate,
  isCredit,
  transactionTypeLabel,
} from '../lib/format';
import { isNearBottom, transactionsStatus, type TransactionsState } from '../lib/pagination';
import type { TransactionFilter } from '../lib/types';

export function TransactionHistory({ state, onLoadMore }: { state: TransactionsState; onLoadMore: () => void }) {
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<TransactionFilter>('all');
  const scrollRef = useRef<HTMLDivElement>(null);
  const visible = useMemo(() => filterTransactions(state.items, search, filter), [state.items, search, filter]);
  const status = transactionsStatus(state, visible.length);
  const [exporting, setExporting] = useState(false);

  // Every page with the current filter, built by the wallet service (not just the rows loaded here).
  const exportCsv = async () => {
    setExporting(true);
    try {
      await downloadTransactionsCsv(search, filter);
    } catch (error) {
      console.error('CSV export failed:', error);
      toast({
        title: 'Export Failed',
        description: error instanceof Error && error.message ? error.message : BILLING_MESSAGES.exportFailed,
        variant: 'destructive',
        error,
      });
    } finally {
      setExporting(false);
    }
  };

  // When the rows do not fill the box (e.g. a narrow filter), its bottom is already in view:
  // keep loading while more pages exist, as scrolling would.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || !state.loaded || state.loading || !state.hasMore) return;
    if (el.scrollHeight > el.clientHeight) return;
    onLoadMore();
  }, [state.loaded, state.loading, state.hasMore, visible.length, onLoadMore]);

  return (
    <section className="wallet-card wallet-card--wide" aria-labelledby="wallet-history-title">
      <header className="wallet-card__header">
        <h2 id="wallet-history-title" className="wallet-card__title">
          Transaction History
        </h2>
        <Button
          icon={<DownloadOutlined aria-hidden="true" />}
          onClick={() => void exportCsv()}
          loading={exporting}
          disabled={exporting}
          aria-describedby="wallet-export-hint"
        >
          Export CSV
        </Button>
        <span id="wallet-export-hint" className="sr-only">
          Downloads every transaction matching the current search and type filter as transactions.csv
        </span>
      </header>
      <div className="wallet-history__tools">
        <Input
          className="wallet-history__search"
          placeholder="Search transactions..."
          aria-label="Search transactions"
          prefix={<SearchOutlined aria-hidden="true" />}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          allowClear
        />
        <Select<TransactionFilter>
          className="wallet-history__filter"
          aria-label="Filter by type"
          value={filter}
          onChange={setFilter}
          options={TRANSACTION_FILTER_OPTIONS.map((option) => ({ ...option }))}
        />
      </div>
      <div
        ref={scrollRef}
        className="wallet-history__scroll"
        style={{ maxHeight: TABLE_MAX_HEIGHT_PX }}
        role="region"
        aria-label="Transactions"
        tabIndex={0}
        onScroll={(event) => {
          if (isNearBottom(event.currentTarget, SCROLL_THRESHOLD_PX)) onLoadMore();
        }}
      >
        <table className="wallet-table">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Amount</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {visible.map((tx) => (
              <tr key={tx.id}>
                <td className="wallet-table__date">{formatTransactionDate(tx.date)}</td>
                <td className={isCredit(tx) ? 'wallet-amount wallet-amount--credit' : 'wallet-amount wallet-amount--debit'}>
                  {formatTransactionAmount(tx)}
                </td>
                <td>{transactionTypeLabel(tx)}</td>
                <td>{formatDescription(tx.description)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="wallet-history__status" aria-live="polite">
          {status}
        </p>
      </div>
    </section>
  );
}
