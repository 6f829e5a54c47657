package eventstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/agentic-app/agentic/services/platform/testwait"
)

// WaitConsumed waits until group has committed every message written to
// topic so far: on each partition its committed offset reaches the end.
// events.Consumer commits a message only after handling it, so a test that
// redelivers an event can then check that it changed nothing, instead of
// sleeping for as long as handling might take.
func WaitConsumed(t testing.TB, brokers []string, group, topic string, opts ...testwait.Option) {
	t.Helper()
	cl := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 5 * time.Second}
	testwait.Until(t, fmt.Sprintf("group %s to consume all of %s", group, topic), func() bool {
		behind, err := lag(context.Background(), cl, group, topic)
		return err == nil && behind == 0
	}, opts...)
}

// lag is how many messages of topic group has not committed yet.
func lag(ctx context.Context, cl *kafka.Client, group, topic string) (int64, error) {
	md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		return 0, err
	}
	var partitions []int
	for _, tp := range md.Topics {
		if tp.Name != topic {
			continue
		}
		if tp.Error != nil {
			return 0, tp.Error
		}
		for _, p := range tp.Partitions {
			partitions = append(partitions, p.ID)
		}
	}
	if len(partitions) == 0 {
		return 0, fmt.Errorf("topic %s has no partitions yet", topic)
	}
	requests := make([]kafka.OffsetRequest, len(partitions))
	for i, p := range partitions {
		requests[i] = kafka.LastOffsetOf(p)
	}
	ends, err := cl.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: requests}})
	if err != nil {
		return 0, err
	}
	commits, err := cl.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: partitions}})
	if err != nil {
		return 0, err
	}
	committed := map[int]int64{}
	// A group that never committed is unknown to the broker: nothing read.
	if commits.Error != nil && !errors.Is(commits.Error, kafka.GroupIdNotFound) {
		return 0, commits.Error
	}
	for _, p := range commits.Topics[topic] {
		committed[p.Partition] = p.CommittedOffset
	}
	var behind int64
	for _, p := range ends.Topics[topic] {
		if p.Error != nil {
			return 0, p.Error
		}
		if c := max(committed[p.Partition], 0); p.LastOffset > c {
			behind += p.LastOffset - c
		}
	}
	return behind, nil
}
