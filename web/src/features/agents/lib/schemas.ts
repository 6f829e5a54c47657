import { z } from 'zod';
import { DEFAULT_COLOR, DEFAULT_ICON } from '../constants';

/** Spec §5 "Create agent" messages (the contract). */
export const CREATE_AGENT_MESSAGES = {
  name: 'Name must be at least 2 characters',
  nameMax: 'Name must be at most 100 characters',
  description: 'Description must be at least 10 characters',
  category: 'Category is required',
} as const;

export const createAgentSchema = z.object({
  name: z.string().min(2, CREATE_AGENT_MESSAGES.name),
  description: z.string().min(10, CREATE_AGENT_MESSAGES.description),
  category: z.string().trim().min(1, CREATE_AGENT_MESSAGES.category),
  isPublic: z.boolean().optional(),
  iconName: z.string(),
  iconColor: z.string(),
});

export type CreateAgentInput = z.input<typeof createAgentSchema>;
export type CreateAgentValues = z.output<typeof createAgentSchema>;

export const createAgentDefaults: CreateAgentInput = {
  name: '',
  description: '',
  category: '',
  isPublic: false,
  iconName: DEFAULT_ICON,
  iconColor: DEFAULT_COLOR,
};

/** The longest name the server accepts (characters). */
export const MAX_AGENT_NAME = 100;

/**
 * The Settings tab's check of a new name (issue 29), with the Create dialog's rule and the server's limit
 * (the server trims): null when it is fine.
 */
export function agentNameProblem(name: string): string | null {
  const n = [...name.trim()].length;
  if (n < 2) return CREATE_AGENT_MESSAGES.name;
  if (n > MAX_AGENT_NAME) return CREATE_AGENT_MESSAGES.nameMax;
  return null;
}
