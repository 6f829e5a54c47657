export { InstructionsAndDocuments } from './components/InstructionsAndDocuments';
export type { AgentDocument } from './types';
