// The analytics area of the admin API: readers' feedback aggregated by page.
import { Shape } from './shape.ts';
import type { ApiClient } from './transport.ts';

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;

export interface FeedbackQuery {
  dateFrom?: string;
  /** Exclusive upper bound, as the API has it. */
  dateTo?: string;
  source?: string;
  statuses?: string[];
  /** 1..100 */
  limit?: number;
}

export interface PageFeedback {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
}

export interface FeedbackPage {
  feedback: PageFeedback[];
  hasMore: boolean;
}

export async function getFeedbackByPage(client: ApiClient, projectId: string, query: FeedbackQuery): Promise<FeedbackPage> {
  const path = `/v1/analytics/${encodeURIComponent(projectId)}/feedback/by-page`;
  const body = await client.request('GET', path, {
    query: {
      dateFrom: query.dateFrom,
      dateTo: query.dateTo,
      source: query.source,
      status: query.statuses?.length ? query.statuses.join(',') : undefined,
      limit: query.limit
    }
  });
  const shape = new Shape(body, `GET ${path}`);
  return {
    feedback: shape.array('feedback').map((row, index) => {
      const item = new Shape(row, `GET ${path} (feedback[${index}])`);
      return {
        path: item.string('path'),
        thumbsUp: item.number('thumbsUp'),
        thumbsDown: item.number('thumbsDown'),
        code: item.number('code'),
        total: item.number('total')
      };
    }),
    hasMore: shape.boolean('hasMore')
  };
}
