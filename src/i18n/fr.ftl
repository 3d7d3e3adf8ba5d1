# seatmap en français : pages des acheteurs, e-mail et messages.
# Les noms de spectacles, de zones et de tarifs sont ceux de l’organisateur :
# ils arrivent en $arguments et ne sont jamais traduits.

skip-to-content = Aller au contenu
nav-my-orders = Mes commandes
nav-language = Langue
all-events = Tous les spectacles
back-to-map = Retour au plan de salle
events-title = Spectacles
events-none = Aucun spectacle n’est encore en vente.
sold-out = Complet
standing-left = { $left } places debout libres sur { $total }
price-from-amount = à partir de { $price }
sale-on-sale-at = En vente le { $at }.
sale-not-yet = Pas encore en vente.
sale-draft = Un brouillon : seul le personnel le voit jusqu’à sa publication.
sale-closed = La vente pour ce spectacle est close.
sale-started = Ce spectacle a commencé ; les billets ne sont plus vendus.
sale-cancelled = Ce spectacle est annulé. Les commandes passées sont conservées et seront remboursées.
sale-label-on-sale = En vente
sale-label-not-yet = Pas encore en vente
sale-label-draft = Brouillon
sale-label-closed = Vente close
sale-label-started = Commencé
sale-label-cancelled = Annulé
seats-left = { $left } places libres sur { $total }
map-heading = Plan de salle
map-all-sections = Toutes les zones
map-section = Zone { $name }
map-section-part = Rangs { $first }–{ $last }
map-section-part-row = Rang { $row }
map-section-parts = Parties de cette zone
map-stage = Scène
map-tap-to-zoom = Touchez le plan pour zoomer, puis touchez une place.
map-choose-section = Choisir une zone
zoom-out = Dézoomer
zoom-fit = Ajuster à l’écran
zoom-fit-short = Ajuster
zoom-in = Zoomer
prices = Prix
prices-to-show = Prix affichés
price-from = De
price-to = à
show = Afficher
show-in-full = Mettre en avant
show-every-seat = toutes les places
legend = Légende
list-link = Liste des places libres
list-link-hint = (les mêmes actions, sans le plan)
list-title = { $event } : liste des places
list-heading = { $event } : places libres
list-choose-section = Choisir une zone
list-none = Aucune place n’est libre.
list-row = Rang { $row }
seat-name = { $section }, rang { $row }, place { $seat }
seat-state-available = libre
seat-state-held = réservée par quelqu’un d’autre
seat-state-mine = réservée par vous
seat-state-sold = vendue
seat-state-blocked = hors vente
flag-wheelchair = emplacement fauteuil roulant
flag-companion = place accompagnateur
flag-restricted-view = visibilité réduite
flag-restricted-view-because = visibilité réduite ({ $why })
flag-aisle = place côté allée
flag-step-free = accès sans marches
flag-hearing-loop = boucle magnétique
flag-lift-up-armrest = accoudoir relevable
flag-extra-legroom = plus d’espace pour les jambes
flag-clear-view = pleine visibilité
confirm-wheelchair-space = Ceci est un emplacement pour fauteuil roulant. Est-il pour une personne en fauteuil ?
confirm-companion-seat = Ceci est une place accompagnateur, à côté d’un emplacement fauteuil. Est-elle pour l’accompagnateur d’une personne en fauteuil ?
best-title = Meilleures places
best-count = Nombre de places
best-section = Zone
best-any-section = Toutes les zones
best-price = Prix
best-any-price = Tous les prix
best-wheelchair = En fauteuil roulant
best-wheelchair-none = Personne
best-wheelchair-hint = Chaque personne en fauteuil a un emplacement, le reste du groupe à côté.
best-apart = Places séparées possibles
best-clear-view = Pas de visibilité réduite
best-find = Trouver des places
best-found = Trouvé : { $seats } ({ $total }).
best-swapped = { $released } libérées ; vous avez maintenant { $seats } ({ $total }).
best-none-together = Il n’y a pas de places côte à côte pour un groupe de cette taille. Cochez « Places séparées possibles » pour avoir les meilleures places même séparées, ou essayez une autre zone ou un autre prix.
best-undo = Annuler : reprendre mes places précédentes
seats-one = place { $seat }
seats-run = places { $first }–{ $last }
seats-place = { $section }, rang { $row }, { $seats }
seats-together = { $count ->
    [one] { $count } place en { $place }
   *[other] { $count } places côte à côte en { $place }
}
seats-apart = { $count ->
    [one] { $count } place : { $places }
   *[other] { $count } places : { $places }
}
notice-holding = Réservé : { $seat } ({ $price }).
notice-taken = Désolé, quelqu’un d’autre vient de prendre { $seat }. Choisissez une autre place.
notice-over-limit = Vous pouvez réserver { $max } places au plus. Libérez-en une pour choisir { $seat }.
notice-released-seat = { $seat } libérée ; elle est de nouveau en vente.
notice-not-in-hold = { $seat } n’est plus dans votre réservation.
notice-released-seats = { $count ->
    [one] { $count } place libérée ; elle est de nouveau en vente.
   *[other] { $count } places libérées ; elles sont de nouveau en vente.
}
notice-no-hold = Vous n’avez aucune place réservée.
inspect-available = { $seat } est de nouveau libre. Choisissez-la pour la réserver.
inspect-mine = { $seat } est dans votre réservation.
inspect-held = { $seat } est réservée par quelqu’un d’autre. Sans achat, elle revient en vente à la fin de sa réservation.
inspect-sold = { $seat } est vendue.
inspect-blocked = { $seat } est hors vente.
notice-holding-ga = { $count ->
    [one] { $count } billet debout réservé.
   *[other] { $count } billets debout réservés.
}
notice-released-ga = { $count ->
    [one] { $count } billet debout libéré ; il est de nouveau en vente.
   *[other] { $count } billets debout libérés ; ils sont de nouveau en vente.
}
notice-held-until = Vos places sont réservées jusqu’au { $until }.
ga-meta = Places debout · { $tier } { $price } le billet
ga-tickets = Billets
ga-hold = Réserver des billets
ga-left = { $count } libres
ga-mine = Vous en avez { $count }
hold-heading = Vos places
hold-held-for = Réservées pendant
hold-until = (jusqu’à { $clock })
hold-extend = Besoin de plus de temps ? { $minutes } minutes de plus
hold-release = Libérer
hold-release-seat = Libérer { $seat }
hold-release-all = Tout libérer
hold-release-all-confirm = Libérer toutes vos places ? Elles reviennent aussitôt en vente.
hold-total = Total
hold-ticket-type = Type de billet pour { $seat }
hold-ga-place = { $area }, place { $n }
hold-promo-code = Code promo (facultatif)
selection-summary = { $tickets ->
    [0] { $seats ->
        [one] { $seats } place
       *[other] { $seats } places
    }
   *[other] { $seats ->
        [0] { $tickets ->
            [one] { $tickets } billet
           *[other] { $tickets } billets
        }
        [one] { $seats } place et { $tickets ->
            [one] { $tickets } billet
           *[other] { $tickets } billets
        }
       *[other] { $seats } places et { $tickets ->
            [one] { $tickets } billet
           *[other] { $tickets } billets
        }
    }
}
buy-heading-now = Acheter
buy-heading-checkout = Paiement
buy-heading-reserve = Réserver
buy-label-now = Acheter pour { $total }
buy-label-online = Payer { $total }
buy-label-reserve = Réserver, payer { $total } au guichet
hold-left = restantes
hold-checkout = Paiement
hold-name = Nom
hold-email = E-mail
hold-released-by-box-office = Le guichet a levé votre réservation ; ses places sont de nouveau en vente. Vous pouvez en choisir d’autres.
hold-none = Vous n’avez aucune place. Choisissez une place libre sur le plan : elle vous est réservée { $minutes } minutes le temps d’acheter.
hold-awaiting-payment = Vos places attendent votre paiement :
hold-finish-paying = Terminer le paiement
hold-expired-announce = Votre réservation a expiré. Ses places sont de nouveau en vente.
hold-30s-announce = Plus que 30 secondes de réservation.
hold-2min-announce = Plus que 2 minutes de réservation.
hold-more-time-announce = Vous pouvez demander plus de temps.
hold-expired-pick-again = Votre réservation a expiré — choisissez de nouveau.
order-title = Vos billets : { $event }
order-thanks = Merci, { $name }.
order-for = { $name }, votre commande pour
order-places = Vos places
order-cancelled = Ce spectacle a été annulé. Votre commande est conservée et sera remboursée.
order-find-again = retrouve cette commande dans ce navigateur.
order-number = Numéro de commande
order-heading-order = Votre commande
order-heading-tickets = Vos billets
order-tickets-shown = Billets { $range } sur { $count } sur cette page ; le PDF les contient tous.
order-pages = Pages de billets
order-page-previous = Billets précédents
order-page-next = Billets suivants
order-valid-tickets = { $count ->
    [one] { $count } billet valable
   *[other] { $count } billets valables
}
mail-status-sent = Vos billets ont été envoyés à { $email } à { $at }.
mail-status-queued = Vos billets vont être envoyés à { $email }. En attendant, ils sont sur cette page.
mail-status-retrying = Nous n’avons pas encore pu écrire à { $email } et réessayons. Vos billets sont sur cette page.
mail-status-failed = Nous n’avons pas pu écrire à { $email } et avons abandonné. Vos billets sont sur cette page : gardez son adresse ou imprimez-les.
mail-status-none = Aucun e-mail n’a été envoyé pour cette commande ; vos billets sont sur cette page.
ticket-refunded = Remboursé le { $at }
ticket-released = Remis en vente le { $at }
ticket-release-to-sale = Empêché ? Remettre cette soirée en vente
ticket-admitted = Entré le { $at } par { $gate }
ticket-valid = Valable : montrez ce code à l’entrée
ga-place = { $area } (places debout)
order-total = total { $total }
order-print = Imprimer les billets
ticket-title = Billet : { $event }
ticket-for = pour { $name }
ticket-code = Code
ticket-open-alone = Ouvrir ce billet seul
ticket-print = Imprimer ce billet
mine-title = Mes commandes
mine-none = Aucune commande n’a été passée dans ce navigateur. Une commande passée ailleurs s’ouvre par le lien de son e-mail.
mine-event = Spectacle
mine-when = Quand
mine-tickets = Billets
mine-total = Total
mine-bought = Acheté
mail-subject = Vos billets pour { $event }
mail-greeting = Bonjour { $name },
mail-thanks = merci pour votre commande. Vos billets pour { $event } sont ci-dessous.
mail-ticket-code = Code du billet : { $code }
mail-ticket-link = Billet avec son code QR : { $url }
mail-order = Commande { $order }
mail-all-tickets = Tous vos billets, prêts à imprimer :
mail-link-until = Ce lien marche jusqu’au { $until }. Quiconque l’a voit vos billets :
    gardez-le pour vous.
mail-door = À l’entrée, montrez le code QR sur votre téléphone ou sur papier. Chaque code
    fait entrer une personne, une fois.
error-seats-unavailable = Quelqu’un d’autre vient de prendre certaines de ces places.
error-hold-limit = Une réservation compte au plus { $max } places.
error-hold-expired = Cette réservation a expiré ; ses places sont de nouveau en vente.
error-timeout = La requête a mis trop de temps à arriver. Réessayez.
error-no-event = Spectacle introuvable.
error-no-page = Page introuvable.
error-no-hold = Réservation introuvable.
error-no-order = Commande introuvable.
error-email = Saisissez une adresse e-mail valable, comme nom@example.com.
where-section = en { $section }
where-tier = au tarif { $tier }
error-not-enough-seats = { $free ->
    [one] Seule { $free } place est libre
   *[other] Seules { $free } places sont libres
}{ $where } ; { $asked } ont été demandées.
error-not-enough-together = Il n’y a pas { $asked } places côte à côte{ $where }, mais { $free } places sont libres séparément. Redemandez avec "together": false pour avoir les { $asked } meilleures même séparées.
error-kept-seats = { $count ->
    [one] { $count } autre emplacement fauteuil ou place accompagnateur est gardé pour les personnes en fauteuil et leurs accompagnateurs.
   *[other] { $count } autres emplacements fauteuil et places accompagnateur sont gardés pour les personnes en fauteuil et leurs accompagnateurs.
}
error-no-wheelchair-space = Aucun emplacement fauteuil n’est libre{ $where }.
error-spaces-elsewhere = Emplacements fauteuil libres ailleurs : { $sections }.
error-box-office-helps = Le guichet peut aussi vous aider.
error-few-wheelchair-spaces = { $free ->
    [one] Seul { $free } emplacement fauteuil est libre
   *[other] Seuls { $free } emplacements fauteuil sont libres
}{ $where } ; { $asked } ont été demandés.
error-wheelchair-not-together = { $free ->
    [one] { $free } emplacement fauteuil est libre
   *[other] { $free } emplacements fauteuil sont libres
}{ $where }, mais aucun n’a { $others ->
    [one] { $others } place libre
   *[other] { $others } places libres
} à côté. Redemandez avec "together": false (« Places séparées possibles ») pour { $spaces ->
    [one] { $spaces } emplacement
   *[other] { $spaces } emplacements
} et les meilleures autres places à proximité.

payment-received = Paiement reçu
payment-paid-box-office = { $amount } payés au guichet. Vos billets sont ci-dessous.
payment-paid-card = { $amount } payés par carte. Vos billets sont ci-dessous.
payment-waiting = En attente de la confirmation du paiement
payment-waiting-text = Cette page se met à jour dès que le paiement par carte de { $amount } est confirmé ; cela prend en général quelques secondes. Vos places restent à vous en attendant.
payment-not-made = Paiement non effectué
payment-held = Vos places vous attendent pour le paiement
payment-pay-by = Payez { $amount } avant le { $by } pour recevoir vos billets ; ensuite, les places reviennent en vente.
payment-left-unpaid = Vous avez quitté la page de paiement sans payer. Payez { $amount } avant le { $by } pour recevoir vos billets ; ensuite, les places reviennent en vente.
payment-reserved = Réservé : payez au guichet
payment-reserved-text = Payez { $amount } au guichet avant le { $by }, en donnant le numéro de commande { $order }. Vos billets sont émis au paiement ; passé ce délai, les places reviennent en vente.
payment-lapsed = Pas payé à temps
payment-lapsed-text = Cette commande n’a pas été payée avant le { $by } ; ses places sont revenues en vente. Rien n’a été débité.
payment-refunding = Votre paiement est remboursé
payment-late-refund-sent = Votre paiement de { $amount } est arrivé après l’expiration de la réservation de vos places, et quelqu’un d’autre les avait achetées entre-temps. Nous ne gardons pas d’argent pour des places que nous n’avons pas pu vous donner : le remboursement a été envoyé sur votre carte ; les banques l’affichent en général sous 5 à 10 jours.
payment-late-refunding = Votre paiement de { $amount } est arrivé après l’expiration de la réservation de vos places, et quelqu’un d’autre les avait achetées entre-temps. Nous ne gardons pas d’argent pour des places que nous n’avons pas pu vous donner : la totalité est remboursée sur votre carte.
mail-refund-subject = Votre paiement pour { $event } est remboursé
mail-refund-text = Votre paiement de { $amount } pour { $event } ({ $starts }) nous est parvenu après
    l’expiration de la réservation de vos places, et quelqu’un d’autre les avait
    achetées entre-temps. Nous ne gardons pas d’argent pour des places que nous n’avons
    pas pu vous donner : les { $amount } sont remboursés sur la carte utilisée. Les
    banques affichent un remboursement en général sous 5 à 10 jours.
mail-refund-sorry = Nous en sommes désolés. Si vous voulez toujours venir, le plan de salle montre ce qui est libre.
mail-refunded-subject = Votre remboursement pour { $event }
mail-refunded-text = Nous avons remboursé { $amount } pour ces billets pour { $event } ({ $starts }). Ils sont annulés et ne donnent plus accès :
mail-refunded-online = L’argent revient sur la carte avec laquelle vous avez payé. Les banques affichent un remboursement sous 5 à 10 jours en général.
mail-refunded-cash = L’argent vous a été rendu en espèces à la billetterie.
mail-refunded-card = L’argent a été recrédité sur votre carte à la billetterie. Les banques affichent un remboursement sous 5 à 10 jours en général.
mail-refunded-box-office = Rien n’a été débité en ligne pour ces billets : la billetterie vous rembourse comme vous avez payé.
mail-refunded-nothing = Rien n’a été payé pour ces billets : il n’y a rien à rembourser.
mail-refunded-still-valid = { $count ->
    [one] Votre autre billet reste valable ; votre commande le montre :
   *[other] Vos { $count } autres billets restent valables ; votre commande les montre :
}
mail-refunded-all = Il ne reste rien de cette commande.
error-buyer-name = Saisissez votre nom : 1 à { $max } caractères, aucun invisible.
error-count = Demandez entre 1 et { $max } { $things ->
    [tickets] billets
   *[seats] places
}.
error-wheelchair-users = Dites combien des { $count } personnes du groupe sont en fauteuil roulant : 0 à { $count }.
error-already-purchased = Cette réservation a déjà été achetée.
error-hold-released = Cette réservation a été levée ; ses places sont de nouveau en vente.
error-too-many-requests = Trop de demandes de réservation. Patientez un instant et réessayez.
error-holds-from-network = Trop de places sont réservées depuis votre réseau ({ $live } réservations). Achetez-en ou libérez-en, ou attendez qu’une réservation expire.
error-live-streams = Trop de plans en direct sont ouverts depuis votre réseau. Fermez-en et rechargez.
error-waitlist-entries = Cette adresse a déjà { $max } places sur cette liste d'attente, le maximum.
error-proof-of-work-needed = Beaucoup de personnes ont rejoint cette file depuis votre réseau dans la dernière minute : pour la rejoindre maintenant, il faut d'abord résoudre un petit calcul ({ $bits } bits). La page le résout d'elle-même ; avec l'API, demandez un défi et envoyez sa réponse.
error-house-share = Les acheteurs de votre réseau réservent déjà { $max } places pour cet événement, le maximum pour un réseau tant que la salle d'attente est ouverte. Achetez-en ou libérez-en, ou attendez qu'une réservation expire.
error-no-section = Ce spectacle n’a pas cette zone.
error-no-seat-in-hold = Cette place n’est pas dans la réservation.
error-no-seat-in-event = Cette place n’existe pas pour ce spectacle.
error-no-ticket = Ce billet n’existe pas.
error-no-seats = Aucune place { $ids } pour ce spectacle.
error-no-areas = Aucune zone debout { $ids } pour ce spectacle.
error-already-extended = Cette réservation a déjà eu son temps supplémentaire.
error-too-early-to-extend = Vous pouvez demander plus de temps dans les { $minutes } dernières minutes de votre réservation.
error-not-enough-capacity = { $left ->
    [0] { $area } est complet.
    [one] Il ne reste que { $left } place en { $area } ; vous en avez demandé { $asked }.
   *[other] Il ne reste que { $left } places en { $area } ; vous en avez demandé { $asked }.
}
error-hold-being-paid = Ces places sont en cours de paiement : ouvrez votre commande pour les payer.

## The waitlist
error-waitlist-first = Ces places vont d’abord à la liste d’attente : elles sont proposées aux personnes qui attendent dès qu’elles se libèrent. Inscrivez-vous pour qu’on vous en propose.
error-not-sold-out = { $free ->
    [one] Une place qui vous conviendrait est encore en vente : choisissez-la plutôt que d’attendre.
   *[other] { $free } places qui vous conviendraient sont encore en vente : choisissez-les plutôt que d’attendre.
}
error-no-waitlist-entry = Cette inscription à la liste d’attente n’existe pas.
error-cannot-rejoin = On peut se réinscrire une seule fois, après l’expiration d’une offre.
error-offer-not-taken = Ce navigateur réserve déjà des places pour cet événement : achetez-les ou libérez-les, puis rouvrez le lien de l’offre.
waitlist-title = Liste d’attente : { $event }
waitlist-party = { $count ->
    [one] Une personne
   *[other] Un groupe de { $count }
}
waitlist-unconfirmed = Votre place n'est pas encore confirmée : ouvrez le lien de l'e-mail que nous vous avons envoyé et appuyez sur « Confirmer ma place ». D'ici là, vous ne recevez aucune offre.
waitlist-confirm = Confirmer ma place
waitlist-confirm-text = Confirmez que cette adresse e-mail est la vôtre pour prendre votre place sur la liste d'attente. Seules les places confirmées reçoivent des offres.
waitlist-confirmed = Votre place est confirmée.
waitlist-waiting = Vous êtes numéro { $position } sur la liste d’attente. Nous vous écrivons dès que des places se libèrent pour vous.
waitlist-offered = Des places vous sont réservées en ce moment.
waitlist-take-offer = Voir et acheter vos places
waitlist-offer-until = Elles sont à vous jusqu’à { $until } ; ensuite, elles vont au groupe suivant.
waitlist-accepted = Vous avez acheté les places proposées.
waitlist-lapsed = Votre offre a expiré et ses places sont allées au groupe suivant.
waitlist-left = Vous n’êtes plus sur cette liste d’attente.
waitlist-leave = Quitter la liste d’attente
waitlist-rejoin = Se réinscrire en fin de liste
waitlist-back = Retour à l’événement
waitlist-join-heading = Complet : inscrivez-vous sur la liste d’attente
waitlist-join-text = Les places qui se libèrent vont d’abord à la liste d’attente, dans l’ordre d’inscription. Nous vous écrivons une offre et vous réservons les places un moment.
waitlist-party-size = Places
waitlist-together = Côte à côte
waitlist-email = E-mail
waitlist-join = S’inscrire
waitlist-mail-subject = Liste d’attente : { $event }
waitlist-mail-confirm = Vous avez demandé une place sur la liste d'attente de { $event } ({ $starts }). Confirmez votre adresse e-mail pour la prendre : seules les places confirmées reçoivent des offres. Si vous n'avez rien demandé, ignorez cet e-mail.
waitlist-mail-joined = Vous êtes sur la liste d’attente de { $event } ({ $starts }). Quand des places se libèrent pour vous, nous vous les réservons et vous écrivons. Votre place, et comment quitter la liste :
waitlist-mail-offer-subject = Des places pour vous : { $event }
waitlist-mail-offer = Des places se sont libérées pour { $event } ({ $starts }) et vous sont réservées jusqu’à { $until }. Ouvrez ce lien pour les voir et les acheter :
waitlist-mail-lapsed-subject = Votre offre a expiré : { $event }
waitlist-mail-lapsed = Votre offre pour { $event } a expiré et ses places sont allées au groupe suivant. Vous pouvez vous réinscrire une fois, en fin de liste :
error-already-waiting = Vous êtes déjà sur cette liste d’attente (ce navigateur ou cette adresse e-mail).

# Receipts (issue 47)
receipt-tickets = Billets
receipt-discount = Remise { $code }
receipt-fees = Frais de réservation
receipt-tax-included = Dont TVA { $rate } %
receipt-tax-added = Taxe { $rate } %
receipt-total = Total
receipt-refunded = Remboursé
receipt-heading = Reçu
notice-code-applied = Code { $code } appliqué : le total montre la remise.
notice-code-removed = Code retiré.
hold-code-applied = Code { $code } appliqué.
hold-code-remove = Retirer
hold-code-apply = Appliquer

## Transmettre un billet, et le billet en fichier (ticket 49)
error-ticket-used = Ce billet a déjà été validé à l’entrée : il ne peut plus être transmis.
error-ticket-transferred = Ce billet a été transmis à quelqu’un d’autre : son ancien code ne marche plus.
error-transfers-not-allowed = Les billets de cet événement ne peuvent pas être transmis.
error-transfers-closed = Les billets de cet événement pouvaient être transmis jusqu’au { $at }.
error-transfer-limit = Ce billet a été transmis autant de fois que cet événement le permet ({ $limit } fois).
error-transfer-cancelled = Cet événement est annulé : ses billets ne peuvent pas être transmis.
error-language = Choisissez l’une des langues proposées.
ticket-passed-on = Envoyé à { $name } ({ $email }) : c’est son nouveau code qui vaut billet.
order-pdf = Tout télécharger en PDF
ticket-pdf = Télécharger le PDF
ticket-apple-wallet = Ajouter à Apple Wallet
ticket-google-wallet = Ajouter à Google Wallet
transfer-heading = Envoyer à quelqu’un
transfer-explain = Le billet lui est envoyé par e-mail avec un nouveau code. Ce code-ci cesse alors de marcher, à l’entrée aussi.
transfer-name = Son nom
transfer-email = Son adresse e-mail
transfer-lang = Sa langue
transfer-send = Envoyer le billet
passed-on-title = Ce billet a été transmis
passed-on-text = Il a été envoyé à { $name } le { $at }. Ce code ne permet plus d’entrer : le nouveau, si.
ticket-file-section = Section
ticket-file-row = Rang
ticket-file-seat = Place
ticket-file-area = Zone
ticket-file-event = Événement
ticket-file-date = Date
ticket-file-venue = Lieu
ticket-file-type = Billet
ticket-file-price = Prix
ticket-file-holder = Nom
ticket-file-order = Commande
ticket-file-door-note = Présentez ce code à l’entrée. Chaque billet n’est valable qu’une fois.
mail-ticket-pdf = Le billet en PDF : { $url }
mail-tickets-pdf = Tous en un seul PDF : { $url }
mail-transferred-subject = { $from } vous a envoyé un billet pour { $event }
mail-transferred-text = { $from } vous a envoyé un billet pour { $event }. Il est à vous désormais :
mail-transferred-own = Ce code n’est qu’à vous : celui qu’avait { $from } ne marche plus.
mail-transfer-receipt-subject = Votre billet pour { $event } a été transmis
mail-transfer-receipt-text = Vous avez envoyé votre billet pour { $event } ({ $place }) à { $name } ({ $email }) le { $at }.
mail-transfer-receipt-old-code = Son ancien code ne permet plus d’entrer ; un nouveau lui a été envoyé.
mail-transfer-receipt-not-you = Si ce n’était pas vous, contactez la billetterie sans attendre.
mail-ticket-passed-on = { $place } ({ $tier }) : transmis à { $name }, dont le nouveau code vaut billet
seasons-title = Abonnements
season-events = { $count } événements, la même place à chacun
series-dates = { $count } dates
season-not-yet = En vente à partir du { $at }.
season-place-held = Réservée pour vous à chaque soirée de l’abonnement.
season-place-released = Rendue, pour chaque soirée.
season-best-found = { $count } places côte à côte, réservées à chaque soirée.
season-released = Vos places sont remises en vente.
season-night-released = Cette soirée est remise en vente. Vos autres soirées ne changent pas.
season-night-released-credit = Cette soirée est remise en vente ; son prix vous sera crédité dès qu’elle sera vendue. Vos autres soirées ne changent pas.
season-renewed = Renouvelé : vos places sont à vous pour la nouvelle saison.
season-given-up = Abandonné : vos places sont remises en vente.
season-nights = Les soirées
season-choose = Choisissez { $count } soirées
season-choose-show = Voir les places libres pour ces soirées
season-your-places = Vos places
season-pick-hint = Choisissez une place : elle est réservée pour vous à toutes les soirées à la fois.
season-total = Total { $total }
season-buy = Acheter l’abonnement
season-release-all = Tout rendre
renewal-title = Renouveler vos places : { $season }
renewal-for = Pour { $name }
renewal-until = Réservées pour vous jusqu’au { $until }. Ensuite, elles sont remises en vente.
renewal-renew = Renouveler
renewal-give-up = Renoncer à mes places
renewal-over = Ce renouvellement est terminé : les places sont remises en vente.
renewal-see-order = Voir vos billets
renewal-mail = Vos places sont réservées pour vous dans { $season } jusqu’au { $until }. Renouvelez-les, ou renoncez-y, par le lien ci-dessous ; sans réponse, elles seront remises en vente ensuite.
renewal-mail-subject = Renouveler vos places : { $season }
queue-title = Salle d’attente : { $event }
queue-intro = Cette vente a une salle d’attente : chacun passe à son tour et le plan reste rapide. Quand ce sera votre tour, vous pourrez choisir vos places.
queue-open-now = La vente est ouverte : les acheteurs entrent à tour de rôle.
queue-opens-at = La vente ouvre à { $time }.
queue-fair = Tous ceux qui rejoignent avant l’ouverture reçoivent une place dans un ordre aléatoire : rien ne sert d’arriver tôt ni de recharger la page.
queue-position = Votre place dans la file
queue-ahead = Personnes devant vous
queue-wait = Attente estimée
queue-keep-open = Gardez cette page ouverte : elle passe d’elle-même au plan de salle quand c’est votre tour.
queue-expired = Votre temps d’achat est écoulé. Rejoignez la file pour une nouvelle place à la fin.
queue-join = Rejoindre la file
queue-pow-needs-script = Votre navigateur résout une petite énigme qui tient les robots à l’écart…
queue-pow-ready = Prêt.
queue-wait-seconds = { $count ->
    [one] environ 1 seconde
   *[other] environ { $count } secondes
}
queue-wait-minutes = { $count ->
    [one] environ 1 minute
   *[other] environ { $count } minutes
}
queue-wait-hours = { $count ->
    [one] environ 1 heure
   *[other] environ { $count } heures
}
