import { listAnswer } from '../../pagination.js';
import {
  getConversationById,
  getConversationIssueById,
  getConversationsIssuesCluster,
  ingestConversation,
  listConversations,
  listConversationsIssues,
  listConversationsIssuesClusters,
} from '../../services/conversation-service.js';
import { presentCluster, presentConversation, presentConversationDetails, presentIssueWithConversation } from '../presenters/conversation-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Support conversations, the issues found in them and their clusters. */
export function conversationHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    ingestConversation: async ({ caller, params, query, body }) => {
      await ingestConversation(services, caller, params.organizationId, body, query.source);
      return { status: 204 };
    },

    listConversations: async ({ caller, params, query }) => {
      const page = await listConversations(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentConversation(present, row)) };
    },

    getConversationById: async ({ caller, params }) => {
      const conversation = await getConversationById(services, caller, params.organizationId, params.conversationId);
      return { status: 200, body: presentConversationDetails(present, conversation) };
    },

    listConversationsIssues: async ({ caller, params, query }) => {
      const page = await listConversationsIssues(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentIssueWithConversation(present, row)) };
    },

    getConversationIssueById: async ({ caller, params }) => {
      const issue = await getConversationIssueById(services, caller, params.organizationId, params.issueId);
      return { status: 200, body: presentIssueWithConversation(present, issue) };
    },

    listConversationsIssuesClusters: async ({ caller, params, query }) => {
      const page = await listConversationsIssuesClusters(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentCluster(present, row)) };
    },

    getConversationsIssuesCluster: async ({ caller, params }) => {
      const cluster = await getConversationsIssuesCluster(services, caller, params.organizationId, params.clusterId);
      return { status: 200, body: presentCluster(present, cluster) };
    },
  };
}
