package drive

import (
	"context"
	"time"

	drivev3 "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
)

// CommentScope is the OAuth2 scope of the comment calls: Drive has no
// narrower scope that lets a user reply to comments on files shared with
// them, so domain-wide delegation must grant it for the agents' domain.
const CommentScope = drivev3.DriveScope

// commentFields are the comment fields the comments worker reads.
const commentFields = "nextPageToken,comments(id,content,author(displayName,emailAddress,me),createdTime,modifiedTime,resolved,deleted," +
	"replies(id,content,author(displayName,emailAddress,me),createdTime,modifiedTime,deleted))"

// replyFields are the fields of a created reply.
const replyFields = "id,content,author(displayName,emailAddress,me),createdTime"

// User is the author of a comment or reply. EmailAddress may be empty: Drive
// leaves it out when the author keeps it private.
type User struct {
	DisplayName  string
	EmailAddress string
	// Me: the author is the caller (the agent).
	Me bool
}

// Reply is a reply to a comment.
type Reply struct {
	ID          string
	Content     string
	Author      User
	CreatedTime time.Time
	Deleted     bool
}

// Comment is a comment on a file with its replies (oldest first).
type Comment struct {
	ID           string
	Content      string
	Author       User
	CreatedTime  time.Time
	ModifiedTime time.Time
	Resolved     bool
	Deleted      bool
	Replies      []Reply
}

// ListComments returns the file's comments (all pages, without deleted ones)
// as agent; since, when not zero, is comments.list's startModifiedTime: only
// comments modified at or after it (a reply modifies its comment).
func (c *Client) ListComments(ctx context.Context, agent, fileID string, since time.Time) ([]Comment, error) {
	s, err := c.serviceWith(agent, CommentScope)
	if err != nil {
		return nil, &Error{Kind: KindFailed, Message: "Could not set up Google Drive access", Err: err}
	}
	var out []Comment
	token := ""
	for {
		var page *drivev3.CommentList
		err := c.retry(ctx, "comments", func(ctx context.Context) error {
			call := s.Comments.List(fileID).IncludeDeleted(false).PageSize(100).
				Fields(googleapi.Field(commentFields)).Context(ctx)
			if !since.IsZero() {
				call = call.StartModifiedTime(since.UTC().Format(time.RFC3339Nano))
			}
			if token != "" {
				call = call.PageToken(token)
			}
			var err error
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, dc := range page.Comments {
			if dc == nil {
				continue
			}
			cm := Comment{ID: dc.Id, Content: dc.Content, Author: user(dc.Author), CreatedTime: parseTime(dc.CreatedTime),
				ModifiedTime: parseTime(dc.ModifiedTime), Resolved: dc.Resolved, Deleted: dc.Deleted}
			for _, dr := range dc.Replies {
				if dr == nil {
					continue
				}
				cm.Replies = append(cm.Replies, Reply{ID: dr.Id, Content: dr.Content, Author: user(dr.Author),
					CreatedTime: parseTime(dr.CreatedTime), Deleted: dr.Deleted})
			}
			out = append(out, cm)
		}
		if page.NextPageToken == "" || page.NextPageToken == token {
			return out, nil
		}
		token = page.NextPageToken
	}
}

// CreateReply posts a plain-text reply to a comment as agent. It is tried
// once (a retried POST could post twice): the caller decides what to do
// after a failure, knowing that the reply may have been created.
func (c *Client) CreateReply(ctx context.Context, agent, fileID, commentID, content string) (Reply, error) {
	s, err := c.serviceWith(agent, CommentScope)
	if err != nil {
		return Reply{}, &Error{Kind: KindFailed, Message: "Could not set up Google Drive access", Err: err}
	}
	var r *drivev3.Reply
	err = c.retryN(ctx, "reply", 1, func(ctx context.Context) error {
		var err error
		r, err = s.Replies.Create(fileID, commentID, &drivev3.Reply{Content: content}).
			Fields(googleapi.Field(replyFields)).Context(ctx).Do()
		return err
	})
	if err != nil {
		return Reply{}, err
	}
	return Reply{ID: r.Id, Content: r.Content, Author: user(r.Author), CreatedTime: parseTime(r.CreatedTime)}, nil
}

func user(u *drivev3.User) User {
	if u == nil {
		return User{}
	}
	return User{DisplayName: u.DisplayName, EmailAddress: u.EmailAddress, Me: u.Me}
}

// parseTime reads an RFC 3339 time; zero when absent or invalid.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
