import { Field, ObjectType } from 'type-graphql';
import { NodeInterface } from './node.js';
import { SafeIntScalar } from './scalars.js';

@ObjectType('User', {
  implements: NodeInterface,
  simpleResolvers: true,
  description: 'A user as REST shows it to everyone (UserBasic).',
})
export class UserType {
  __typename!: 'User';

  id!: string;

  @Field(() => SafeIntScalar, { description: 'The numeric id REST uses.' })
  databaseId!: number;

  @Field(() => String)
  username!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: '`active` or `blocked`.' })
  state!: string;

  @Field(() => Boolean, { description: 'As REST `locked`: always false.' })
  locked!: boolean;

  @Field(() => String)
  avatarUrl!: string;

  @Field(() => String)
  webUrl!: string;
}
